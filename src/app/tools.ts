import { MAX_CATALOG_TOOLS, MAX_TOOL_NAME_CHARS } from '../protocol/limits.js';
import { compileSchema } from '../protocol/tools/arguments.js';
import { availabilityOf } from '../protocol/tools/definitions.js';
import { FLATTENED_STRING, POLICIES, type JsonSchema, type Policy, type CatalogTool, type ToolAnnotations, type ToolAvailability } from '../protocol/tools/types.js';

/** What a handler gets besides its arguments. */
export interface ToolCallContext {
  /** The host's frame id for this call (a batch call: its `callId` when given). */
  readonly callId: string;
  /** The host's conversation, when it named one. */
  readonly sessionId?: string;
}

/** Returns the tool's result (any JSON value); throw to fail (an `AppToolError` chooses the code). */
export type ToolHandler = (args: Record<string, unknown>, ctx: ToolCallContext) => unknown | Promise<unknown>;

/** A `flattened-string` tool's handler: its arguments as one string, the compact JSON text of the arguments object. */
export type FlattenedToolHandler = (args: string, ctx: ToolCallContext) => unknown | Promise<unknown>;

/** A tool as an application registers it (`registerTool`); its handler receives the arguments object. */
export interface AppToolSpec extends AppToolSpecBase {
  /** The default, JSON: the handler receives the arguments object. */
  readonly argumentEncoding?: 'json';
  readonly handler: ToolHandler;
}

/** Either kind of tool `registerTool` takes. */
export type AnyAppToolSpec = AppToolSpec | FlattenedToolSpec;

/**
 * The tool protocol's older encoding (docs/tool-protocol.md): the catalog says `argumentEncoding:
 * "flattened-string"` and the handler receives one string. The host still
 * sends an object, checked against `inputSchema` first; the SDK flattens it.
 */
export interface FlattenedToolSpec extends AppToolSpecBase {
  readonly argumentEncoding: 'flattened-string';
  readonly handler: FlattenedToolHandler;
}

interface AppToolSpecBase {
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
  /** Plain JSON Schema of the handler's result; published, and every result is checked against it before it is sent. */
  readonly outputSchema?: JsonSchema;
  readonly annotations?: ToolAnnotations;
  readonly prerequisiteToolIds?: readonly string[];
  /** Evaluated for every catalog answer and right before every call (docs/tool-protocol.md). */
  readonly availability?: () => ToolAvailability;
}

/** A registered tool: the tool layer's definition (so catalogs and revisions are computed as the daemon does) plus its handler. */
export interface AppTool extends CatalogTool {
  /** Called with the arguments as the tool's encoding says: an object, or for `flattened-string` tools a string. */
  readonly handler: (args: never, ctx: ToolCallContext) => unknown | Promise<unknown>;
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

  register(spec: AnyAppToolSpec): void {
    if (typeof spec.id !== 'string' || spec.id.trim() === '' || spec.id.length > MAX_TOOL_NAME_CHARS) {
      throw new TypeError(`A tool id has 1 to ${MAX_TOOL_NAME_CHARS} characters`);
    }
    if (this.byId.has(spec.id)) throw new TypeError(`Tool ${spec.id} is already registered`);
    if (this.byId.size >= MAX_CATALOG_TOOLS) throw new TypeError(`An application publishes at most ${MAX_CATALOG_TOOLS} tools`);
    if (!POLICIES.includes(spec.policy)) throw new TypeError(`Tool ${spec.id}: policy must be read, write or critical`);
    if (typeof spec.handler !== 'function') throw new TypeError(`Tool ${spec.id} needs a handler`);
    if (spec.argumentEncoding !== undefined && spec.argumentEncoding !== 'json' && spec.argumentEncoding !== FLATTENED_STRING) {
      throw new TypeError(`Tool ${spec.id}: argumentEncoding must be json or flattened-string`);
    }
    try {
      compileSchema(spec.inputSchema);
      if (spec.outputSchema) compileSchema(spec.outputSchema, 'output schema');
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
      ...(spec.outputSchema ? { outputSchema: spec.outputSchema } : {}),
      ...(spec.argumentEncoding === FLATTENED_STRING ? { argumentEncoding: FLATTENED_STRING } : {}),
      availability: () => overrides.get(spec.id) ?? availabilityOf(spec),
      handler: spec.handler as AppTool['handler'],
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
