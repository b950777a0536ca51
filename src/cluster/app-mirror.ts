import type { Logger } from '../log.js';
import { BerthError } from '../protocol/errors/index.js';
import { errorFrom, failedAnswer, type BusError } from './bus-errors.js';
import { availabilityOf, definitionOf } from '../protocol/tools/definitions.js';
import type { ApplicationToolRegistry } from '../tools/application-registry.js';
import type { Tool, ToolAvailability, ToolDefinition, ToolResult } from '../tools/types.js';
import type { Workspace } from '../workspace/types.js';
import { FORWARD_TIMEOUT_MS } from './limits.js';
import { APPS_CATALOG_SUBJECT, APPS_HELLO_SUBJECT, appsSubject, downSubject } from './subjects.js';
import { BusRequestError, type BusSubscription, type BusTransport } from './transport.js';

/** One application's publication as its node announces it: definitions with their availability now, or gone. */
interface Announcement {
  readonly nodeId: string;
  readonly workspaceId: string;
  readonly applicationId: string;
  readonly connected?: boolean;
  readonly tools?: ReadonlyArray<ToolDefinition & { readonly runtime: ToolAvailability }>;
  readonly withdrawn?: true;
}

interface AppCall {
  readonly workspaceId: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly callId: string;
  readonly sessionId: string | null;
}

/** The longest an application call relayed to another node waits: the tool protocol's own call deadline is five minutes (docs/tool-protocol.md). */
const APP_CALL_TIMEOUT_MS = 5 * 60_000 + FORWARD_TIMEOUT_MS;

/**
 * Application tools across nodes (docs/cluster-bus.md, applications): each node announces
 * the catalogs of the applications connected to it, and keeps a copy of every other node's in
 * its own registry, so `workspace_tools` and session catalogs list them as they list local ones.
 * A copied tool runs by asking its node, which runs the application's own tool there. A node
 * that starts says hello, and every node announces its applications again. A node that stops
 * says so, and one that cannot be reached any more (killed) is found out by the first call:
 * either way its copies turn `application_disconnected` until their application connects again.
 */
export function mirrorApplications(
  transport: BusTransport,
  nodeId: string,
  registry: ApplicationToolRegistry,
  workspaceOf: (workspaceId: string) => Workspace | undefined,
  log: Logger,
): BusSubscription {
  const announce = (workspaceId: string, applicationId: string) => {
    const here = registry.connectedHere(workspaceId, applicationId);
    const message: Announcement = here
      ? { nodeId, workspaceId, applicationId, connected: here.connected, tools: here.tools.map((t) => ({ ...definitionOf(t), runtime: availabilityOf(t) })) }
      : { nodeId, workspaceId, applicationId, withdrawn: true };
    transport.publish(APPS_CATALOG_SUBJECT, JSON.stringify(message));
  };
  registry.watch(announce);
  /** Copied publications per node they live on: `workspaceId` → application ids. */
  const copies = new Map<string, Map<string, Set<string>>>();
  const lostNode = (origin: string) => {
    for (const [workspaceId, apps] of copies.get(origin) ?? []) for (const app of apps) registry.disconnect(workspaceId, app);
  };
  const subs: BusSubscription[] = [];
  subs.push(
    transport.subscribe(APPS_CATALOG_SUBJECT, (data) => {
      try {
        copy(JSON.parse(Buffer.from(data).toString('utf8')) as Announcement);
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'an application catalog from another node was refused');
      }
    }),
    transport.subscribe(APPS_HELLO_SUBJECT, (data) => {
      if (Buffer.from(data).toString('utf8') !== nodeId) for (const [ws, app] of registry.connectedIds()) announce(ws, app);
    }),
    transport.serve(appsSubject(nodeId), async (data) => JSON.stringify(await runHere(readAppCall(data)))),
  );
  void transport.flush().then(() => transport.publish(APPS_HELLO_SUBJECT, nodeId), () => undefined);

  function copy(a: Announcement): void {
    if (a.nodeId === nodeId || typeof a.workspaceId !== 'string' || typeof a.applicationId !== 'string') return;
    if (registry.connectedHere(a.workspaceId, a.applicationId)) return; // the application connected here wins
    const fromNode = copiesOf(a.nodeId);
    if (a.withdrawn) {
      fromNode.get(a.workspaceId)?.delete(a.applicationId);
      return registry.withdraw(a.workspaceId, a.applicationId);
    }
    const tools: Tool[] = (a.tools ?? []).map(({ runtime, ...def }) => ({
      ...def,
      availability: () => runtime,
      run: (args, ctx) => relay(a.nodeId, { workspaceId: a.workspaceId, tool: def.name, args, callId: ctx.callId, sessionId: ctx.sessionId }, ctx.signal),
    }));
    registry.publish(a.workspaceId, a.applicationId, tools, undefined, a.nodeId);
    fromNode.set(a.workspaceId, (fromNode.get(a.workspaceId) ?? new Set()).add(a.applicationId));
    if (a.connected === false) registry.disconnect(a.workspaceId, a.applicationId);
  }

  function copiesOf(origin: string): Map<string, Set<string>> {
    let byWorkspace = copies.get(origin);
    if (!byWorkspace) {
      byWorkspace = new Map();
      copies.set(origin, byWorkspace);
      subs.push(transport.subscribe(downSubject(origin), () => lostNode(origin)));
    }
    return byWorkspace;
  }

  async function runHere(call: AppCall): Promise<{ ok: true; result: ToolResult } | { ok: false; error: BusError }> {
    try {
      const workspace = workspaceOf(call.workspaceId);
      const tool = registry.get(call.workspaceId, call.tool);
      if (!workspace || !tool || !registry.connectedHere(call.workspaceId, registry.applicationOf(call.workspaceId, call.tool)!)) {
        throw new BerthError('tool_unavailable', `No application connected to node ${nodeId} publishes ${call.tool}`, { tool: call.tool });
      }
      const availability = availabilityOf(tool);
      if (!availability.available) throw new BerthError('tool_unavailable', availability.reason ?? `${call.tool} is unavailable`, { tool: call.tool });
      const signal = AbortSignal.timeout(APP_CALL_TIMEOUT_MS);
      const ask = () => Promise.reject(new BerthError('tool_unavailable', 'An application tool run for another node cannot ask the owner'));
      return { ok: true, result: await tool.run(call.args, { callId: call.callId, sessionId: call.sessionId, workspace, signal, ask }) };
    } catch (err) {
      return failedAnswer(err);
    }
  }

  async function relay(origin: string, call: AppCall, signal: AbortSignal): Promise<ToolResult> {
    let data: Uint8Array;
    try {
      data = await transport.request(appsSubject(origin), JSON.stringify(call), APP_CALL_TIMEOUT_MS);
    } catch (err) {
      if (!(err instanceof BusRequestError)) throw err;
      if (err.reason === 'no_responders') lostNode(origin);
      throw new BerthError('application_disconnected', `The node ${origin} the application is connected to did not answer (${err.reason})`, { tool: call.tool });
    }
    if (signal.aborted) throw new BerthError('tool_cancelled');
    const answer = JSON.parse(Buffer.from(data).toString('utf8')) as Awaited<ReturnType<typeof runHere>>;
    if (answer.ok) return answer.result;
    throw errorFrom(answer.error);
  }

  return { unsubscribe: () => subs.forEach((s) => s.unsubscribe()) };
}

/** Refused whole unless every field has its type; the asker then gets no answer and reports the node unreachable. */
function readAppCall(data: Uint8Array): AppCall {
  const v = JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown> | null;
  const fine =
    v !== null && typeof v === 'object' && typeof v.workspaceId === 'string' && typeof v.tool === 'string' && typeof v.callId === 'string' &&
    (v.sessionId === null || typeof v.sessionId === 'string') && typeof v.args === 'object' && v.args !== null && !Array.isArray(v.args);
  if (!fine) throw new Error('not an application call');
  return v as unknown as AppCall;
}
