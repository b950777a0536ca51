import { BerthError } from '../protocol/errors/index.js';
import { availabilityOf } from '../protocol/tools/definitions.js';
import type { BatchReport } from '../protocol/tools/batch.js';
import type { ApplicationBatchRequest, ApplicationLink } from '../tools/application-link.js';
import type { ApplicationToolRegistry } from '../tools/application-registry.js';
import type { ToolResult } from '../tools/types.js';
import type { Workspace } from '../workspace/types.js';
import { answerFrom, busJson, failedAnswer } from './bus-errors.js';
import { FORWARD_TIMEOUT_MS } from './limits.js';
import { appsSubject } from './subjects.js';
import { BusRequestError, type BusSubscription, type BusTransport } from './transport.js';

/** What a node asks the node an application is connected to: one tool run as an agent's, or one batch on its line. */
export type AppRequest =
  | { readonly op: 'run'; readonly workspaceId: string; readonly tool: string; readonly args: Record<string, unknown>; readonly callId: string; readonly sessionId: string | null }
  | { readonly op: 'batch'; readonly workspaceId: string; readonly applicationId: string; readonly request: ApplicationBatchRequest; readonly sessionId: string | null };

/** The longest an application call relayed to another node waits: the tool protocol's own call deadline is five minutes (docs/tool-protocol.md). */
const APP_CALL_TIMEOUT_MS = 5 * 60_000 + FORWARD_TIMEOUT_MS;

/** Runs what other nodes ask of the applications connected here, as a local caller would have them run. */
export function serveApplicationCalls(
  transport: BusTransport,
  nodeId: string,
  registry: ApplicationToolRegistry,
  workspaceOf: (workspaceId: string) => Workspace | undefined,
): BusSubscription {
  const run = async (r: AppRequest): Promise<unknown> => {
    const signal = AbortSignal.timeout(APP_CALL_TIMEOUT_MS);
    const workspace = workspaceOf(r.workspaceId);
    const applicationId = r.op === 'batch' ? r.applicationId : registry.applicationOf(r.workspaceId, r.tool);
    const here = applicationId === undefined ? undefined : registry.connectedHere(r.workspaceId, applicationId);
    if (!workspace || !here?.connected) {
      throw new BerthError('application_disconnected', `The application is not connected to node ${nodeId} any more`, { workspaceId: r.workspaceId });
    }
    if (r.op === 'batch') return registry.link(r.workspaceId, r.applicationId)!.batch(r.request, { sessionId: r.sessionId, signal });
    const tool = registry.get(r.workspaceId, r.tool)!;
    const availability = availabilityOf(tool);
    if (!availability.available) throw new BerthError('tool_unavailable', availability.reason ?? `${r.tool} is unavailable`, { tool: r.tool });
    const ask = () => Promise.reject(new BerthError('tool_unavailable', 'An application tool run for another node cannot ask the owner'));
    return tool.run(r.args, { callId: r.callId, sessionId: r.sessionId, workspace, signal, ask });
  };
  return transport.serve(appsSubject(nodeId), async (data) => {
    try {
      return JSON.stringify({ ok: true, value: await run(readRequest(data)) });
    } catch (err) {
      return JSON.stringify(failedAnswer(err));
    }
  });
}

/** Asks the node `origin` to run a copied application tool, or a batch; `gone` hears of a node nobody answers for. */
export function applicationRelay(transport: BusTransport, gone: (origin: string) => void) {
  async function ask<T>(origin: string, request: AppRequest, signal: AbortSignal | undefined): Promise<T> {
    let data: Uint8Array;
    try {
      data = await transport.request(appsSubject(origin), JSON.stringify(request), APP_CALL_TIMEOUT_MS);
    } catch (err) {
      if (!(err instanceof BusRequestError)) throw err;
      if (err.reason === 'no_responders') gone(origin);
      throw new BerthError('application_disconnected', `The node ${origin} the application is connected to did not answer (${err.reason})`);
    }
    if (signal?.aborted) throw new BerthError('tool_cancelled');
    return answerFrom<T>(data, origin);
  }
  return {
    run: (origin: string, request: Extract<AppRequest, { op: 'run' }>, signal: AbortSignal) => ask<ToolResult>(origin, request, signal),
    /** A line to a copied application: batches travel whole to its node (`workspace_tool_batch`), single calls run there as an agent's. */
    link(origin: string, workspaceId: string, applicationId: string): ApplicationLink {
      return {
        applicationId,
        async call(toolId, args, options = {}) {
          const request = { op: 'run', workspaceId, tool: toolId, args, callId: `relay-${toolId}`, sessionId: options.sessionId ?? null } as const;
          try {
            return { ok: true, result: await ask<ToolResult>(origin, request, options.signal) };
          } catch (err) {
            return { ok: false, error: (err instanceof BerthError ? err : new BerthError('internal_error', String(err))).toFrameError() };
          }
        },
        batch: (request, options = {}) =>
          ask<BatchReport>(origin, { op: 'batch', workspaceId, applicationId, request, sessionId: options.sessionId ?? null }, options.signal),
      };
    },
  };
}

/** Refused whole unless every field has its type: the asker hears `invalid_request` at once rather than waiting out its deadline. */
function readRequest(data: Uint8Array): AppRequest {
  const v = busJson(data) as Record<string, unknown> | null;
  const common = v !== null && typeof v === 'object' && typeof v.workspaceId === 'string' && (v.sessionId === null || typeof v.sessionId === 'string');
  const isObject = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);
  const run = common && v.op === 'run' && typeof v.tool === 'string' && typeof v.callId === 'string' && isObject(v.args);
  const batch = common && v.op === 'batch' && typeof v.applicationId === 'string' && isObject(v.request) && Array.isArray((v.request as { calls?: unknown }).calls);
  if (!run && !batch) throw new BerthError('invalid_request', 'Not an application request another node can run');
  return v as unknown as AppRequest;
}
