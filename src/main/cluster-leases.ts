import type { ClusterChoice } from '../config/cluster.js';
import { LeaseKeeper } from '../cluster/leases.js';
import { LeaseNode } from '../cluster/lease-node.js';
import { ChannelPresence } from '../cluster/channel-presence.js';
import { probeStore } from '../cluster/readiness.js';
import { refuseRemoteSession } from '../cluster/remote.js';
import type { HealthRegistry } from '../health.js';
import type { Logger } from '../log.js';
import { PgDb } from '../store/pg/db.js';
import { PgLeaseRepository } from '../store/pg/leases.js';
import { PgGatewayChannelRepository } from '../store/pg/gateway-channels.js';

/** A running node: its placement and ownership, and how it lets go. */
export interface ClusterWiring {
  readonly node: LeaseNode;
  /** The gateway channels this node holds, counted with the other nodes' against the channel limits. */
  readonly channels: ChannelPresence;
  /** Whether this node holds a session's lease now, without a query. */
  holds(sessionId: string): boolean;
  /** Where a lost lease is reported; the session manager is built after the node. */
  onLost(handler: (sessionId: string) => void): void;
  /** The other nodes running a module tab of the workspace (docs/cluster-bus.md, Module tabs). */
  nodesWithTabs(workspaceId: string): Promise<string[]>;
  /** Gives every lease back and closes the lease connection. */
  stop(): Promise<void>;
}

/**
 * Cluster mode (docs/cluster-leases.md), loaded only when `--node-id` is given. Leases live
 * on a connection of their own: a renewal must not wait behind the session writes queued on
 * the store's connection, and a takeover's lock must not sit inside another unit of it.
 */
export async function startCluster(
  choice: ClusterChoice,
  storeUrl: string,
  storeDb: PgDb,
  deps: {
    readonly recover: (sessionId: string) => Promise<boolean>;
    readonly log: Logger;
    readonly health: HealthRegistry;
    readonly channelLimits: { readonly maxChannels: number; readonly maxChannelsPerToken: number };
  },
): Promise<ClusterWiring> {
  const leaseDb = await PgDb.connect(storeUrl, {
    readers: 0,
    applicationName: 'berth-leases',
    onChange: (up, err) => (up ? deps.log.info('the lease connection is back') : deps.log.warn({ err }, 'lost the lease connection; reconnecting')),
  });
  const repo = new PgLeaseRepository(leaseDb);
  let lost: (sessionId: string) => void = () => undefined;
  const leases = new LeaseKeeper({ repo, nodeId: choice.nodeId, leaseMs: choice.leaseMs, log: deps.log, onLost: (id) => lost(id) });
  const node = new LeaseNode({ nodeId: choice.nodeId, leases, repo, recover: deps.recover, remote: refuseRemoteSession, log: deps.log });
  // Every session write names its session: its fence is that session's lease, looked up when the write is made.
  storeDb.fenceWith((sessionId) => leases.fence(sessionId));
  leases.start();
  const channels = new ChannelPresence({ rows: new PgGatewayChannelRepository(leaseDb), nodeId: choice.nodeId, leaseMs: choice.leaseMs, limits: deps.channelLimits, log: deps.log });
  await channels.start();
  // The lease connection answers, and the store's write connection is not being re-established.
  deps.health.probe(() =>
    probeStore({ rows: (sql) => leaseDb.rows(sql), connected: leaseDb.connected && storeDb.connected }),
  );
  deps.health.probe(async () => ({
    name: 'node',
    ready: !node.isDraining,
    detail: { nodeId: choice.nodeId, leases: leases.count, ...(node.isDraining ? { draining: true } : {}) },
  }));
  deps.log.info({ nodeId: choice.nodeId, leaseMs: choice.leaseMs }, 'running as a cluster node');
  let stopping: Promise<void> | undefined;
  return {
    node,
    channels,
    holds: (sessionId) => leases.holds(sessionId),
    onLost: (handler) => (lost = handler),
    nodesWithTabs: (workspaceId) => repo.nodesWithTabs(workspaceId, choice.nodeId),
    stop() {
      stopping ??= Promise.all([node.stop(), channels.stop()])
        .then(() => undefined, (err: unknown) => deps.log.warn({ err }, 'releasing the leases or the channel rows failed'))
        .finally(() => leaseDb.close());
      return stopping;
    },
  };
}
