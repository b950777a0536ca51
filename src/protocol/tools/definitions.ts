import { sha256Revision } from './canonical-json.js';
import { toProtocolSchema } from './protocol-schema.js';
import type { ToolAvailability, ToolDefinition } from './types.js';

/**
 * A tool definition as the tool protocol publishes it (docs/tool-protocol.md) (`detail: "definitions"`): the
 * stable id, a display name, and everything a caller needs to call the tool.
 * Our `ToolDefinition.name` is the stable id; `title` is the display name.
 */
export interface WireDefinition {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly category: string;
  readonly policy: string;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations?: Record<string, unknown>;
  readonly prerequisiteToolIds?: readonly string[];
  readonly outputSchema?: Record<string, unknown>;
  readonly argumentEncoding?: string;
}

/** A tool's runtime state as the catalog shows it; omitted entirely when available (docs/tool-protocol.md defaults). */
export interface WireRuntime {
  readonly available: false;
  readonly code?: string;
  readonly reason?: string;
  readonly requiredState?: string;
  readonly remediation?: string;
  readonly retryable?: true;
}

export const AVAILABLE: ToolAvailability = { available: true };

/** The static part of a definition, with protocol defaults omitted (docs/tool-protocol.md, Catalog Discovery). */
export function wireDefinition(def: ToolDefinition): WireDefinition {
  const prerequisites = [...new Set((def.prerequisiteToolIds ?? []).map((id) => id.trim()).filter(Boolean))].sort();
  const annotations = Object.keys(def.annotations ?? {}).length > 0 ? { ...def.annotations } : undefined;
  return {
    id: def.name,
    name: def.title ?? def.name,
    description: def.description,
    category: def.category,
    policy: def.policy,
    inputSchema: toProtocolSchema(def.inputSchema),
    ...(annotations ? { annotations } : {}),
    ...(prerequisites.length > 0 ? { prerequisiteToolIds: prerequisites } : {}),
    ...(def.outputSchema ? { outputSchema: toProtocolSchema(def.outputSchema) } : {}),
    ...(def.argumentEncoding ? { argumentEncoding: def.argumentEncoding } : {}),
  };
}

/**
 * `sha256:` + SHA-256 of the definition's canonical JSON. Computed
 * over what the wire shows, so a caller that caches by revision (docs/tool-protocol.md:
 * "cache each response by definitionRevision") caches exactly what it saw.
 */
export function definitionRevision(def: ToolDefinition): string {
  let revision = revisions.get(def);
  if (revision === undefined) {
    revision = sha256Revision(wireDefinition(def));
    revisions.set(def, revision);
  }
  return revision;
}

/** Definitions are immutable values, so each object's revision is computed once. */
const revisions = new WeakMap<ToolDefinition, string>();

/** The compact runtime object for an unavailable tool; undefined when the tool is available. */
export function wireRuntime(a: ToolAvailability): WireRuntime | undefined {
  if (a.available) return undefined;
  return {
    available: false,
    ...(a.code ? { code: a.code } : {}),
    ...(a.reason ? { reason: a.reason } : {}),
    ...(a.requiredState ? { requiredState: a.requiredState } : {}),
    ...(a.remediation ? { remediation: a.remediation } : {}),
    ...(a.retryable ? { retryable: true as const } : {}),
  };
}

/**
 * Evaluates a tool's availability now. A tool without an `availability` probe
 * is always available; a probe that throws makes the tool unavailable rather
 * than breaking the whole catalog.
 */
export function availabilityOf(tool: { availability?(): ToolAvailability }): ToolAvailability {
  if (!tool.availability) return AVAILABLE;
  try {
    return tool.availability();
  } catch (err) {
    return { available: false, code: 'availability_failed', reason: err instanceof Error ? err.message : String(err) };
  }
}

/** Just the definition of a tool: its fields, without `run` or `availability` (one copy for every host). */
export function definitionOf(tool: ToolDefinition): ToolDefinition {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    category: tool.category,
    policy: tool.policy,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
    ...(tool.prerequisiteToolIds ? { prerequisiteToolIds: tool.prerequisiteToolIds } : {}),
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.argumentEncoding ? { argumentEncoding: tool.argumentEncoding } : {}),
  };
}
