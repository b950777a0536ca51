import { MAX_CATALOG_TOOLS, MAX_TOOL_NAME_CHARS } from '../protocol/limits.js';
import { compileSchema } from '../protocol/tools/arguments.js';
import { availabilityOf } from '../protocol/tools/definitions.js';
import { POLICIES, type JsonSchema, type Policy, type CatalogTool, type ToolAnnotations, type ToolAvailability } from '../protocol/tools/types.js';

/** What a handler gets besides its arguments. */
export interface ToolCallContext {
  /** The host's frame id for this call (a batch call: its `callId` when given). */
  readonly callId: string;
  /** The host's conversation, when it named one. */
  readonly sessionId?: string;
}

/** Returns the tool's result (any JSON value); throw to fail (an `AppToolError` chooses the code). */
export type ToolHandler = (args: Record<string, unknown>, ctx: ToolCallContext) => unknown | Promise<unknown>;

/** A tool as an application registers it (`registerTool`). */
export interface AppToolSpec {
  /** Stable id, unique in the application (docs/tool-protocol.md `id`, e.g. `notes.add`). */
  readonly id: string;
  /** Display name; defaults to the id. */
  readonly name?: string;
  readonly description: string;
  readonly category: string;
  /** read < write < critical (docs/tool-protocol.md, Authorization). */
  readonly policy: Policy;
  /** Plain JSON Schema of the arguments: an object with no `additionalProperties` is open, as JSON Schema says. */
  readonly inputSchema: JsonSchema;
  readonly annotations?: ToolAnnotations;
  readonly prerequisiteToolIds?: readonly string[];
  /** Evaluated for every catalog answer and right before every call (docs/tool-protocol.md). */
  readonly availability?: () => ToolAvailability;
  readonly handler: ToolHandler;
}

/** A registered tool: the tool layer's definition (so catalogs and revisions are computed as the daemon does) plus its handler. */
export interface AppTool extends CatalogTool {
  readonly handler: ToolHandler;
}

/** An error a handler throws to answer with its own stable code (docs/tool-protocol.md `tool.error`). */
export class AppToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly options: { readonly retryable?: boolean; readonly details?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = 'AppToolError';
  }
}

/** The application's tools and their reported availability. Registration is checked whole and synchronously. */
export class AppTools {
  private readonly byId = new Map<string, AppTool>();
  private readonly overrides = new Map<string, ToolAvailability>();

  register(spec: AppToolSpec): void {
    if (typeof spec.id !== 'string' || spec.id.trim() === '' || spec.id.length > MAX_TOOL_NAME_CHARS) {
      throw new TypeError(`A tool id has 1 to ${MAX_TOOL_NAME_CHARS} characters`);
    }
    if (this.byId.has(spec.id)) throw new TypeError(`Tool ${spec.id} is already registered`);
    if (this.byId.size >= MAX_CATALOG_TOOLS) throw new TypeError(`An application publishes at most ${MAX_CATALOG_TOOLS} tools`);
    if (!POLICIES.includes(spec.policy)) throw new TypeError(`Tool ${spec.id}: policy must be read, write or critical`);
    if (typeof spec.handler !== 'function') throw new TypeError(`Tool ${spec.id} needs a handler`);
    try {
      compileSchema(spec.inputSchema);
    } catch (err) {
      throw new TypeError(`Tool ${spec.id}: ${(err as Error).message}`);
    }
    const overrides = this.overrides;
    const tool: AppTool = Object.freeze({
      name: spec.id,
      ...(spec.name !== undefined && spec.name !== spec.id ? { title: spec.name } : {}),
      description: spec.description,
      category: spec.category,
      policy: spec.policy,
      inputSchema: spec.inputSchema,
      annotations: spec.annotations ?? {},
      ...(spec.prerequisiteToolIds ? { prerequisiteToolIds: spec.prerequisiteToolIds } : {}),
      availability: () => overrides.get(spec.id) ?? availabilityOf(spec),
      handler: spec.handler,
    });
    this.byId.set(spec.id, tool);
  }

  unregister(id: string): boolean {
    this.overrides.delete(id);
    return this.byId.delete(id);
  }

  /** Reports a runtime state; `null` returns to the tool's own probe (available when it has none). */
  setAvailability(id: string, state: ToolAvailability | null): void {
    if (!this.byId.has(id)) throw new TypeError(`No tool ${id} is registered`);
    if (state) this.overrides.set(id, { ...state });
    else this.overrides.delete(id);
  }

  get(id: string): AppTool | undefined {
    return this.byId.get(id);
  }

  list(): AppTool[] {
    return [...this.byId.values()];
  }
}
