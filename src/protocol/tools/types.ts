/**
 * Tool policy, ordered read < write < critical (docs/tool-protocol.md, Authorization).
 * critical: destructive, secret-bearing or arbitrary-code operations.
 */
export type Policy = 'read' | 'write' | 'critical';
export const POLICIES: readonly Policy[] = ['read', 'write', 'critical'];

export function policyRank(p: Policy): number {
  return POLICIES.indexOf(p);
}

/** True when a guard of `max` permits a tool of `policy`. */
export function policyAllows(max: Policy, policy: Policy): boolean {
  return policyRank(policy) <= policyRank(max);
}

export type JsonSchema = Record<string, unknown>;

export interface ToolAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** What a tool is, independent of where it runs (docs/architecture.md, Tool; docs/tool-protocol.md definitions). */
export interface ToolDefinition {
  /** Stable id; the gateway name for workspace tools, the application's tool id for app tools. */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly category: string;
  readonly policy: Policy;
  readonly inputSchema: JsonSchema;
  readonly annotations: ToolAnnotations;
  /** Tools that should be discovered or called first (docs/tool-protocol.md `prerequisiteToolIds`). */
  readonly prerequisiteToolIds?: readonly string[];
  /** The shape of a successful call's `result`, when the tool publishes one; results are checked against it. */
  readonly outputSchema?: JsonSchema;
  /**
   * docs/tool-protocol.md: a tool that declares `flattened-string` receives its arguments
   * as one string, the compact JSON text of the arguments object. Absent means
   * the default, a JSON object.
   */
  readonly argumentEncoding?: ArgumentEncoding;
}

/** The one non-default argument encoding of the tool protocol (the default, JSON, is never written out). */
export type ArgumentEncoding = 'flattened-string';
export const FLATTENED_STRING: ArgumentEncoding = 'flattened-string';

/** Runtime executability, evaluated again right before each call (docs/tool-protocol.md). */
export interface ToolAvailability {
  readonly available: boolean;
  readonly code?: string;
  readonly reason?: string;
  readonly requiredState?: string;
  readonly remediation?: string;
  readonly retryable?: boolean;
}

/**
 * A tool's successful result. `value` is JSON (what docs/gateway.md `result` frames
 * carry, as text). `content` optionally gives the model-facing rendering
 * (images travel as ACP image blocks).
 */
export interface ToolResult {
  readonly value: unknown;
  readonly content?: readonly ToolContent[];
}

export type ToolContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string };

/** The settled outcome of one call, as every face reports it. */
export type ToolOutcome =
  | { readonly ok: true; readonly result: ToolResult; readonly replayed?: boolean }
  | {
      readonly ok: false;
      readonly error: {
        readonly code: string;
        readonly message: string;
        readonly retryable: boolean;
        readonly details?: Record<string, unknown>;
      };
    };

/** A definition whose availability is evaluated on demand: what a catalog lists (the daemon's tools and an application's alike). */
export interface CatalogTool extends ToolDefinition {
  availability?(): ToolAvailability;
}
