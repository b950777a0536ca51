import { natsMissing, startNats } from './nats.js';
import { postgresMissing, startPostgres } from './postgres.js';
import { siblingHome } from './spawned-client.js';
import type { SpawnedDaemon } from './daemon.js';
import { startSpawnedStack, type SpawnedStack } from './spawned-stack.js';
import { removeDir } from './tmp.js';
import { PgDb } from '../../src/store/pg/db.js';
import { PgTokenRepository } from '../../src/store/pg/tokens.js';
import { TokenService } from '../../src/tokens/tokens.js';

/**
 * Several `berth serve` processes as one cluster (docs/cluster-leases.md, docs/cluster-bus.md):
 * one PostgreSQL, one nats-server, one workspace and scripted model, a home per node id, and
 * one owner token for all (a forwarded request is refused on an anonymous daemon). A node
 * stopped or killed can be started again on its home and id.
 */
export const CLUSTER_TOKEN = 'cluster-acceptance-token';
export const AUTH = { authorization: `Bearer ${CLUSTER_TOKEN}` };

/** Why these tests cannot run here, or undefined. */
export const clusterMissing = (): string | undefined => natsMissing() ?? postgresMissing();

export interface ClusterNodes {
  readonly stack: SpawnedStack;
  readonly storeUrl: string;
  /** The cluster's PostgreSQL: `halt` stops it keeping its data and port, `resume` starts it again. */
  readonly database: { halt(): Promise<void>; resume(): Promise<void> };
  /** The running process of a node id (the latest one started). */
  node(id: string): SpawnedDaemon;
  /** Starts (or starts again) the node `id` on its own home. */
  start(id: string): Promise<SpawnedDaemon>;
  close(): Promise<void>;
}

/** `extraArgs` go to every node's `berth serve` (remote workspaces, limits). */
export async function startClusterNodes(ids: readonly string[], leaseMs: number, extraArgs: readonly string[] = []): Promise<ClusterNodes> {
  const [pg, nats] = await Promise.all([startPostgres(), startNats()]);
  const storeUrl = await pg.createDatabase();
  const stack = await startSpawnedStack({ env: { BERTH_TOKEN: CLUSTER_TOKEN } });
  const homes = new Map<string, string>();
  const running = new Map<string, SpawnedDaemon>();
  const homeOf = (id: string): string => {
    if (!homes.has(id)) homes.set(id, homes.size === 0 ? stack.home : siblingHome(stack.home));
    return homes.get(id)!;
  };
  const cluster: ClusterNodes = {
    stack,
    storeUrl,
    database: { halt: () => pg.halt(), resume: () => pg.resume() },
    node: (id) => running.get(id)!,
    async start(id) {
      const args = ['--home', homeOf(id), '--store', storeUrl, '--bus', nats.url, '--node-id', id, '--lease-ms', String(leaseMs), ...extraArgs];
      const daemon = await stack.serve(...args);
      running.set(id, daemon);
      return daemon;
    },
    async close() {
      await stack.close();
      for (const home of homes.values()) if (home !== stack.home) removeDir(home);
      await Promise.all([nats.stop(), pg.stop()]);
    },
  };
  for (const id of ids) await cluster.start(id);
  return cluster;
}

/** A channel token for `workspaceId`, minted straight in the cluster's store. */
export async function clusterChannelToken(storeUrl: string, workspaceId: string): Promise<string> {
  const db = await PgDb.connect(storeUrl);
  try {
    return (await new TokenService(new PgTokenRepository(db), null).createChannelToken(workspaceId)).token;
  } finally {
    await db.close();
  }
}
