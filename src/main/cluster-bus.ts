import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';
import type { BusNode, ClusterServices } from '../cluster/bus-node.js';
import type { ForwardedRequest, ForwardedResponse } from '../cluster/port.js';
import type { SessionPlacement } from '../cluster/placement.js';
import { redactBusUrl } from '../config/bus.js';
import type { Config } from '../config/config.js';
import type { EventBusStats } from '../events/stats.js';
import { sessionSnapshot } from '../http/views/session.js';
import type { Logger } from '../log.js';
import type { SessionManager } from '../sessions/manager.js';

/**
 * Joins the cluster bus when `--bus` names one (docs/cluster-bus.md). The NATS client
 * and the cluster code are imported only then: a daemon alone loads neither.
 * Without a placement every session is this node's — the lease table supplies the
 * real one (`cluster/placement.ts`) once sessions are owned per node.
 */
export async function joinCluster(
  config: Config,
  placement: SessionPlacement | undefined,
  clock: Clock,
  log: Logger,
  stats: EventBusStats,
  holds?: (sessionId: string) => boolean,
): Promise<BusNode | undefined> {
  if (config.bus === null) return undefined;
  const [{ connectNats }, { BusNode }] = await Promise.all([import('../cluster/nats-transport.js'), import('../cluster/bus-node.js')]);
  const nodePlacement = placement ?? soleNode(randomUUID());
  let transport;
  try {
    transport = await connectNats(config.bus, `berth ${nodePlacement.nodeId}`);
  } catch (err) {
    throw new Error(`cannot reach the cluster bus at ${redactBusUrl(config.bus)}: ${(err as Error).message}`);
  }
  log.info({ bus: redactBusUrl(config.bus), nodeId: nodePlacement.nodeId }, 'joined the cluster bus');
  return new BusNode({ transport, placement: nodePlacement, clock, log, stats, ...(holds && { holds }) });
}

function soleNode(nodeId: string): SessionPlacement {
  return { nodeId, locate: () => Promise.resolve({ kind: 'local' }) };
}

/**
 * What this node answers for the others: a forwarded request runs through its own
 * fastify stack (auth, validation and status codes exactly its own), with the Host
 * this node answers to — the node the client reached already checked the client's.
 */
export function clusterServices(
  cluster: BusNode,
  app: FastifyInstance,
  sessions: SessionManager,
  clock: Clock,
  host: () => string,
  direct?: DirectAnswers,
): ClusterServices {
  return {
    handle: runForwarded(cluster, app, host, direct),
    open: async (sessionId) => {
      const session = await sessions.open(sessionId);
      session.touch();
      return {
        epoch: session.bus.epoch,
        replayFor: (cursor, maxBytes) => session.bus.replayFor(cursor, maxBytes),
        snapshot: () => sessionSnapshot(session),
        now: () => clock.now(),
      };
    },
    followed: (sessionId) => sessions.find(sessionId)?.touch(),
  };
}

/** Answers a forwarded request as `app` would, without its pipeline, or gives `undefined` for one only `app` answers exactly. */
export type DirectAnswers = (request: ForwardedRequest, host: string) => Promise<ForwardedResponse> | undefined;

/**
 * Runs each forwarded request through `app` as if its client had called this node, and hands back the whole
 * answer; one that `direct` answers (the same checks, operation and encoding) skips the pass through `app`.
 */
export function runForwarded(cluster: BusNode, app: FastifyInstance, host: () => string, direct?: DirectAnswers): ClusterServices['handle'] {
  return async (request) => {
    const answered = direct?.(request, host());
    if (answered !== undefined) return answered;
    const res = await app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers: { ...cluster.markForwarded(request.headers), host: host() },
      ...(request.remoteAddress !== undefined && { remoteAddress: request.remoteAddress }),
      ...(request.body !== undefined && { payload: Buffer.from(request.body, 'base64') }),
    });
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value : String(value);
    return { status: res.statusCode, headers, body: res.rawPayload.toString('base64') };
  };
}
