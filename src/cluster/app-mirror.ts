import type { Logger } from '../log.js';
import { availabilityOf, definitionOf } from '../protocol/tools/definitions.js';
import type { ApplicationToolRegistry } from '../tools/application-registry.js';
import type { Tool, ToolAvailability, ToolDefinition } from '../tools/types.js';
import type { Workspace } from '../workspace/types.js';
import { applicationRelay, serveApplicationCalls } from './app-relay.js';
import { APPS_CATALOG_SUBJECT, APPS_HELLO_SUBJECT, downSubject } from './subjects.js';
import type { BusSubscription, BusTransport } from './transport.js';

/** One application's publication as its node announces it: definitions with their availability now, or gone. */
interface Announcement {
  readonly nodeId: string;
  readonly workspaceId: string;
  readonly applicationId: string;
  readonly connected?: boolean;
  readonly tools?: ReadonlyArray<ToolDefinition & { readonly runtime: ToolAvailability }>;
  readonly withdrawn?: true;
}

/**
 * Application tools across nodes (docs/cluster-bus.md, applications): each node announces
 * the catalogs of the applications connected to it, and keeps a copy of every other node's in
 * its own registry, so `workspace_tools` and session catalogs list them as they list local ones.
 * A copied tool runs by asking its node, which runs the application's own tool there, and a
 * batch travels whole to that node's line (src/cluster/app-relay.ts). A node
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
  const relay = applicationRelay(transport, (origin) => lostNode(origin));
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
    serveApplicationCalls(transport, nodeId, registry, workspaceOf),
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
      run: (args, ctx) => relay.run(a.nodeId, { op: 'run', workspaceId: a.workspaceId, tool: def.name, args, callId: ctx.callId, sessionId: ctx.sessionId }, ctx.signal),
    }));
    registry.publish(a.workspaceId, a.applicationId, tools, relay.link(a.nodeId, a.workspaceId, a.applicationId), a.nodeId);
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

  return { unsubscribe: () => subs.forEach((s) => s.unsubscribe()) };
}
