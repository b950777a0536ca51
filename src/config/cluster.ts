/**
 * Cluster mode (docs/cluster-leases.md): with a PostgreSQL store and a node id
 * (`--node-id` or BERTH_NODE_ID), several daemons share one database and each
 * live session runs on the node holding its lease. Without a node id nothing
 * changes. The flag wins over the environment; an empty value means "not set".
 */
export interface ClusterChoice {
  readonly nodeId: string;
  /** How long a lease lasts without renewal; renewed every third of it. */
  readonly leaseMs: number;
}

/** Short and printable: it is logged, shown in `/health`, and is one token of the node's NATS subjects (no dot). */
const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Ten seconds: a dead node's sessions wait at most this long to be taken over. */
export const DEFAULT_LEASE_MS = 10_000;
/** Below this a renewal every third of the lease is too tight for a loaded database round trip. */
export const MIN_LEASE_MS = 300;
/** A lease longer than this keeps a dead node's sessions unreachable too long to be intended. */
export const MAX_LEASE_MS = 600_000;

export class ClusterConfigError extends Error {
  override name = 'ClusterConfigError';
}

const given = (...values: Array<string | undefined>): string | undefined =>
  values.map((v) => v?.trim()).find((v) => v !== undefined && v !== '');

export function resolveClusterChoice(
  flags: { readonly nodeId?: string; readonly leaseMs?: number },
  env: NodeJS.ProcessEnv,
  engine: 'sqlite' | 'postgres',
): ClusterChoice | null {
  const nodeId = given(flags.nodeId, env.BERTH_NODE_ID);
  if (nodeId === undefined) return null;
  const source = flags.nodeId?.trim() ? '--node-id' : 'BERTH_NODE_ID';
  if (!NODE_ID.test(nodeId)) throw new ClusterConfigError(`${source} must be 1-64 characters of A-Z a-z 0-9 _ -, not ${JSON.stringify(nodeId)}`);
  if (engine !== 'postgres') throw new ClusterConfigError(`${source} needs a PostgreSQL store (--store postgres://… or BERTH_STORE_URL): nodes share sessions through it`);
  const rawLease = flags.leaseMs ?? given(env.BERTH_LEASE_MS);
  const leaseMs = rawLease === undefined ? DEFAULT_LEASE_MS : Number(rawLease);
  if (!Number.isInteger(leaseMs) || leaseMs < MIN_LEASE_MS || leaseMs > MAX_LEASE_MS) {
    throw new ClusterConfigError(`the lease time must be an integer number of milliseconds from ${MIN_LEASE_MS} to ${MAX_LEASE_MS}`);
  }
  return { nodeId, leaseMs };
}
