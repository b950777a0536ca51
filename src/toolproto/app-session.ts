import type { Clock } from '../clock.js';
import { APP_CALL_TIMEOUT_MS, APP_QUERY_TIMEOUT_MS } from './limits.js';
import { BerthError, asBerthError } from '../protocol/errors/index.js';
import type { Logger } from '../log.js';
import type {
  ApplicationBatchRequest,
  ApplicationCallOptions,
  ApplicationLink,
  EvidenceRequest,
} from '../tools/application-link.js';
import type { ApplicationToolRegistry } from '../tools/application-registry.js';
import { assertBatchSize, type BatchReport } from '../protocol/tools/batch.js';
import { policyAllows, type Policy, type Tool, type ToolContext, type ToolOutcome, type ToolResult } from '../tools/types.js';
import { TimeSlicer } from '../net/time-slice.js';
import { checkToolSchema } from '../protocol/tools/arguments.js';
import { applicationTool } from './app-tools.js';
import { CatalogSync, type IndexedTool } from './catalog-sync.js';
import type { DefinitionCache } from './definition-cache.js';
import { HostConnection, type FrameSocket } from './host-connection.js';
import { applicationError, batchReportOf, outcomeOf, toolResultOf, type WireBatchReport, type WireError, type WireSuccess } from '../protocol/toolproto/outcomes.js';
import { assertResultMatches, checkedReport, type DefinitionLookup } from './result-check.js';

/** Who connected, as the application token says (src/tokens). */
export interface ApplicationIdentity {
  readonly appName: string;
  readonly maxPolicy: Policy;
}

export interface ApplicationSessionDeps {
  readonly registry: ApplicationToolRegistry;
  readonly clock: Clock;
  readonly log: Logger;
  readonly cache: DefinitionCache;
  readonly workspaceId: string;
  readonly identity: ApplicationIdentity;
}

/** RFC 6455 private-use close code: a newer connection of the same application took over. */
export const CLOSE_REPLACED = 4000;

/**
 * One connected application, host side: its socket (HostConnection), its
 * catalog (CatalogSync), its tools in the registry of the workspace it is
 * bound to, and the raw line (`ApplicationLink`) in-process hosts may use.
 *
 * The token's `maxPolicy` caps what the application may publish: tools above
 * it are left out (and the application is told), never lowered — a lowered
 * policy would let a critical tool run with a write tool's approval. The
 * application hears the cap as `maxToolPolicy` in every query, so a Berth
 * SDK app leaves those tools out of its catalog itself.
 */
export class ApplicationSession implements ApplicationLink {
  readonly applicationId: string;
  readonly connection: HostConnection;
  readonly sync: CatalogSync;
  private built = new Map<string, Tool>();
  /** The published tools by id, for checking results against their output schemas. */
  private published = new Map<string, Tool>();
  private readonly definitionOf: DefinitionLookup = (id) => this.published.get(id);
  private superseded = false;

  constructor(
    private readonly socket: FrameSocket,
    private readonly deps: ApplicationSessionDeps,
  ) {
    this.applicationId = deps.identity.appName;
    this.connection = new HostConnection(socket, deps.clock, (payload) => void this.sync.announce(payload).catch((err) => this.syncFailed(err)));
    this.sync = new CatalogSync({
      query: (payload) => this.query(payload),
      cache: deps.cache,
      publish: (tools) => this.publish(tools),
      hints: { maxToolPolicy: deps.identity.maxPolicy },
    });
  }

  get workspaceId(): string {
    return this.deps.workspaceId;
  }

  /** Fetches the catalog for the first time; a failure is reported to the application, not thrown. */
  start(): Promise<void> {
    return this.sync.refresh().catch((err) => this.syncFailed(err));
  }

  receive(data: string, isBinary: boolean): void {
    this.connection.receive(data, isBinary);
  }

  /** The socket closed: calls in flight fail with `application_disconnected`, the tools stay listed but unavailable. */
  closed(code: number): void {
    this.connection.end(
      new BerthError('application_disconnected', `Application ${this.applicationId} disconnected (close code ${code})`, {
        application: this.applicationId,
      }),
    );
    if (!this.superseded) this.deps.registry.disconnect(this.deps.workspaceId, this.applicationId);
  }

  /** A newer connection of the same application replaces this one; it must not mark the newer one disconnected. */
  supersede(): void {
    this.superseded = true;
    // Unavailable until the newer connection publishes its catalog.
    this.deps.registry.disconnect(this.deps.workspaceId, this.applicationId);
    this.socket.close(CLOSE_REPLACED, 'replaced by a newer connection of this application');
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  async call(toolId: string, args: Record<string, unknown>, options: ApplicationCallOptions = {}): Promise<ToolOutcome> {
    try {
      const reply = await this.send(toolId, args, options);
      if ('code' in reply) return { ok: false, error: { ...reply } };
      assertResultMatches(this.definitionOf, toolId, reply);
      return outcomeOf(reply);
    } catch (err) {
      return { ok: false, error: asBerthError(err).toFrameError() };
    }
  }

  async batch(request: ApplicationBatchRequest, options: ApplicationCallOptions = {}): Promise<BatchReport> {
    assertBatchSize(request.calls.length);
    const payload = {
      ...(request.continueOnError !== undefined ? { continueOnError: request.continueOnError } : {}),
      calls: request.calls.map((c) => ({
        ...(c.callId !== undefined ? { callId: c.callId } : {}),
        toolId: c.toolId,
        arguments: c.arguments ?? {},
        ...(c.after ? { after: c.after } : {}),
      })),
    };
    const delay = Math.max(0, ...request.calls.map((c) => c.after?.delayMilliseconds ?? 0));
    const reply = await this.connection.request('tool.batch', payload, {
      ...requestContext(options),
      timeoutMs: APP_CALL_TIMEOUT_MS + delay * request.calls.length,
      what: `a batch of ${request.calls.length} calls`,
    });
    if (reply.type === 'tool.error') throw applicationError(reply.payload as unknown as WireError);
    return checkedReport(this.definitionOf, batchReportOf(reply.payload as unknown as WireBatchReport, request.calls.map((c) => c.toolId)));
  }

  /** An agent's call through `workspace_tool`, after the executor's checks: the application's refusal is thrown. */
  private async runForAgent(toolId: string, args: Record<string, unknown>, after: EvidenceRequest | undefined, ctx: ToolContext): Promise<ToolResult> {
    const reply = await this.send(toolId, args, { sessionId: ctx.sessionId, signal: ctx.signal, ...(after ? { after } : {}) });
    if ('code' in reply) {
      // The application's view differs from our copy: bring the copy up to date for the next call.
      if (reply.code === 'unknown_tool' || reply.code === 'tool_unavailable') void this.sync.refresh().catch((err) => this.syncFailed(err));
      throw applicationError(reply);
    }
    assertResultMatches(this.definitionOf, toolId, reply);
    return toolResultOf(reply);
  }

  private async send(toolId: string, args: Record<string, unknown>, options: ApplicationCallOptions): Promise<WireSuccess | WireError> {
    const payload = { toolId, arguments: args, ...(options.after ? { after: options.after } : {}) };
    const reply = await this.connection.request('tool.call', payload, {
      ...requestContext(options),
      timeoutMs: APP_CALL_TIMEOUT_MS + (options.after?.delayMilliseconds ?? 0),
      what: `the call to ${toolId}`,
    });
    return reply.payload as unknown as WireSuccess | WireError;
  }

  private async query(payload: Record<string, unknown>): Promise<Record<string, unknown>> {
    const reply = await this.connection.request('tool.query', payload, { timeoutMs: APP_QUERY_TIMEOUT_MS, what: 'a catalog query' });
    if (reply.type === 'tool.error') throw applicationError(reply.payload as unknown as WireError);
    return reply.payload;
  }

  private async publish(indexed: readonly IndexedTool[]): Promise<void> {
    // A replaced connection may still finish a refresh it had started (its answer was on the way when
    // the close went out); its catalog and link must not overwrite the newer connection's.
    if (this.superseded) return;
    const { identity, registry, workspaceId, log } = this.deps;
    const above = indexed.filter((t) => !policyAllows(identity.maxPolicy, t.definition.policy as Policy));
    const left = new Set(above);
    if (above.length > 0) {
      const ids = above.map((t) => t.definition.id);
      log.warn({ application: this.applicationId, tools: ids, maxPolicy: identity.maxPolicy }, 'application tools above the token policy left out');
      this.connection.notice(
        new BerthError('policy_denied', `This application's token allows tools up to ${identity.maxPolicy}; left out: ${ids.join(', ')}`, {
          tools: ids,
          maxPolicy: identity.maxPolicy,
        }),
      );
    }
    const built = new Map<string, Tool>();
    const tools: Tool[] = [];
    const slicer = new TimeSlicer();
    try {
      // Built and their schemas checked in slices, so a large catalog never holds the event loop.
      for (const t of indexed) {
        if (left.has(t)) continue;
        await slicer.tick();
        const tool = this.toolFor(t, built);
        checkToolSchema(tool.inputSchema, `Tool ${tool.name}`);
        tools.push(tool);
      }
      if (this.superseded) return;
      this.built = built;
      this.published = new Map(tools.map((t) => [t.name, t]));
      registry.publish(workspaceId, this.applicationId, tools, this);
    } catch (err) {
      const be = asBerthError(err);
      log.warn({ application: this.applicationId, code: be.code, error: be.message }, 'application catalog refused');
      this.connection.notice(be);
    }
  }

  /** Tools are rebuilt only when their definition changes, so schemas compile once per revision. */
  private toolFor(indexed: IndexedTool, built: Map<string, Tool>): Tool {
    const tool =
      this.built.get(indexed.definitionRevision) ??
      applicationTool(indexed.definition, (id) => this.sync.availability(id), (id, args, after, ctx) => this.runForAgent(id, args, after, ctx));
    built.set(indexed.definitionRevision, tool);
    return tool;
  }

  private syncFailed(err: unknown): void {
    const be = asBerthError(err);
    if (this.connection.closed) return;
    this.deps.log.warn({ application: this.applicationId, code: be.code, error: be.message }, 'application catalog refresh failed');
    // A malformed answer was already refused frame by frame; other failures (timeouts, disagreeing answers) are news.
    if (be.code !== 'protocol_error' && be.code !== 'invalid_encoding') this.connection.notice(be);
  }
}

function requestContext(options: ApplicationCallOptions): { sessionId?: string | null; signal?: AbortSignal } {
  return {
    ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}
