import { MAX_TOOL_NAME_CHARS } from '../protocol/limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { TimeSlicer } from '../net/time-slice.js';
import { AVAILABLE, type WireDefinition, type WireRuntime } from '../protocol/tools/definitions.js';
import type { ToolAvailability } from '../tools/types.js';
import type { DefinitionCache } from './definition-cache.js';
import { assertPayload } from '../protocol/toolproto/payloads.js';

/** A current tool of the application: its definition and the revision the index gave it. */
export interface IndexedTool {
  readonly definition: WireDefinition;
  readonly definitionRevision: string;
}

export interface CatalogSyncDeps {
  /** Sends one `tool.query` and resolves with the decoded, shape-checked `tool.catalog` payload. */
  query(payload: Record<string, unknown>): Promise<Record<string, unknown>>;
  readonly cache: DefinitionCache;
  /** The application's definitions changed: these are now its tools, in index order. */
  publish(tools: readonly IndexedTool[]): void | Promise<void>;
  /** Members added to every query (Berth's `maxToolPolicy` hint). */
  readonly hints: Record<string, unknown>;
}

const TEXT = { type: 'string' };
/** An index entry names everything but the schema (docs/tool-protocol.md: "Index entries omit schemas"). */
const INDEX_ENTRY = {
  type: 'object',
  required: ['id', 'name', 'description', 'category', 'policy', 'definitionRevision'],
  properties: { id: { type: 'string', minLength: 1, maxLength: MAX_TOOL_NAME_CHARS }, name: TEXT, description: TEXT, category: TEXT },
};
const DEFINITION_ENTRY = { ...INDEX_ENTRY, required: [...INDEX_ENTRY.required, 'inputSchema'] };

/**
 * The host's copy of one application's catalog (docs/tool-protocol.md, Catalog
 * Discovery): the index first, then definitions by ids — only those whose
 * `definitionRevision` is not cached — then refreshes with `ifRevision` and
 * `ifAvailabilityRevision`, so an unchanged catalog costs one small answer
 * and an availability-only change carries just the `changes` snapshot.
 *
 * How the daemon learns of changes (Berth's choice): the application sends an
 * unsolicited `tool.catalog` (an index answer, or `unchanged` with
 * `changes`), which is applied like an answer; the daemon also refreshes
 * when a call is answered `unknown_tool` or `tool_unavailable`.
 *
 * Everything is applied one answer at a time, in order. Concurrent refresh
 * requests are coalesced: while one waits to start, later callers share it.
 */
export class CatalogSync {
  private revision: string | undefined;
  private availabilityRevision: string | undefined;
  private runtime = new Map<string, WireRuntime>();
  private chain: Promise<void> = Promise.resolve();
  private waiting: Promise<void> | null = null;
  /** Catalog queries sent, for tests and diagnostics. */
  queriesSent = 0;

  constructor(private readonly deps: CatalogSyncDeps) {}

  /** The runtime state the application last reported for a tool; available unless it said otherwise. */
  availability(id: string): ToolAvailability {
    return this.runtime.get(id) ?? AVAILABLE;
  }

  get currentRevision(): string | undefined {
    return this.revision;
  }

  /** Queries the index (conditionally once one is known) and applies the answer. */
  refresh(): Promise<void> {
    if (this.waiting) return this.waiting;
    const run = this.chain.then(async () => {
      this.waiting = null;
      const known = this.revision !== undefined ? { ifRevision: this.revision, ifAvailabilityRevision: this.availabilityRevision } : {};
      await this.apply(await this.query({ detail: 'index', ...known }));
    });
    this.waiting = run;
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** An unsolicited `tool.catalog` from the application, applied in order with answers. */
  announce(payload: Record<string, unknown>): Promise<void> {
    const run = this.chain.then(() => this.apply(payload));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private query(payload: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.queriesSent += 1;
    return this.deps.query({ ...payload, ...this.deps.hints });
  }

  private async apply(answer: Record<string, unknown>, restarts = 0): Promise<void> {
    if (answer.unchanged === true) {
      if (answer.revision !== this.revision) {
        // "Unchanged" relative to something we do not hold: start over without conditions.
        return this.restart(restarts);
      }
      if (typeof answer.availabilityRevision === 'string') {
        // docs/tool-protocol.md: `changes` is a replacement snapshot; omitted tools are available.
        this.runtime = runtimeMap(answer.changes);
        this.availabilityRevision = answer.availabilityRevision;
      }
      return;
    }
    await this.applyIndex(answer, restarts);
  }

  /** Asks for the whole index again; an application whose answers never agree is refused after one retry. */
  private async restart(restarts: number): Promise<void> {
    this.forget();
    if (restarts >= 1) throw new BerthError('protocol_error', 'The application\'s catalog answers do not agree with each other');
    return this.apply(await this.query({ detail: 'index' }), restarts + 1);
  }

  private async applyIndex(answer: Record<string, unknown>, restarts: number): Promise<void> {
    if (answer.detail === 'definitions' || !Array.isArray(answer.tools)) {
      throw new BerthError('protocol_error', 'A catalog index answer needs `tools`');
    }
    const entries = answer.tools as Record<string, unknown>[];
    const slicer = new TimeSlicer();
    for (const entry of entries) {
      await slicer.tick();
      assertPayload(INDEX_ENTRY, entry, 'catalog index entry');
      // A full answer (no `detail`) carries schemas: cache them as they come.
      if (entry.inputSchema !== undefined) this.remember(entry);
    }
    const missing = entries.filter((e) => !this.deps.cache.has(e.definitionRevision as string)).map((e) => e.id as string);
    if (missing.length > 0) {
      const defs = await this.query({ detail: 'definitions', ids: missing });
      if (!Array.isArray(defs.tools)) throw new BerthError('protocol_error', 'A definitions answer needs `tools`');
      for (const def of defs.tools as Record<string, unknown>[]) {
        await slicer.tick();
        this.remember(def);
      }
    }
    const tools: IndexedTool[] = [];
    for (const entry of entries) {
      const definition = this.deps.cache.get(entry.definitionRevision as string);
      if (!definition || definition.id !== entry.id) {
        // The catalog moved between the index and the definitions: ask again from scratch.
        return this.restart(restarts);
      }
      tools.push({ definition, definitionRevision: entry.definitionRevision as string });
    }
    await this.deps.publish(tools);
    this.runtime = runtimeMap(Object.fromEntries(entries.filter((e) => e.runtime).map((e) => [e.id, e.runtime])));
    this.revision = answer.revision as string;
    this.availabilityRevision = typeof answer.availabilityRevision === 'string' ? answer.availabilityRevision : undefined;
  }

  private remember(entry: Record<string, unknown>): void {
    assertPayload(DEFINITION_ENTRY, entry, 'tool definition');
    const { definitionRevision, runtime: _runtime, executable: _executable, ...definition } = entry;
    this.deps.cache.set(definitionRevision as string, definition as unknown as WireDefinition);
  }

  private forget(): void {
    this.revision = undefined;
    this.availabilityRevision = undefined;
  }
}

function runtimeMap(changes: unknown): Map<string, WireRuntime> {
  const map = new Map<string, WireRuntime>();
  if (typeof changes !== 'object' || changes === null) return map;
  for (const [id, runtime] of Object.entries(changes as Record<string, WireRuntime>)) {
    if (runtime.available === false) map.set(id, runtime);
  }
  return map;
}
