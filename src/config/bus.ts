import type { ClusterChoice } from './cluster.js';
import { ConfigError } from './config.js';
import { redactStoreUrl, type StoreChoice } from './store.js';

const BUS_SCHEMES = new Set(['nats:', 'tls:']);

/**
 * The message bus several daemons share (docs/cluster-bus.md): a NATS server named by
 * `--bus` or `BERTH_BUS_URL`. The flag wins over the environment; an empty value
 * means "not set", and no bus is the single daemon of old. Returns the URL, or null;
 * refused whole when it is not a NATS URL, the store is SQLite, or no node id
 * (`cluster`, resolved first) names this node to the others.
 */
export function resolveBusUrl(flag: string | undefined, env: NodeJS.ProcessEnv, store: StoreChoice, cluster: ClusterChoice | null): string | null {
  const given = [flag, env.BERTH_BUS_URL].map((v) => v?.trim()).find((v) => v !== undefined && v !== '');
  if (given === undefined) return null;
  const source = flag?.trim() ? '--bus' : 'BERTH_BUS_URL';
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new ConfigError(`${source} is not a URL; give nats://host:port`);
  }
  if (!BUS_SCHEMES.has(url.protocol)) {
    throw new ConfigError(`${source} must be a nats:// or tls:// URL, not ${redactBusUrl(given)}`);
  }
  if (url.hostname === '') throw new ConfigError(`${source} names no host: nats://host:port`);
  // Sessions move between nodes through the shared store; a node's own SQLite file is nobody else's.
  if (store.engine !== 'postgres') {
    throw new ConfigError(`${source} needs a PostgreSQL store (--store postgres://…): nodes on a bus share one database, and SQLite is one daemon's file`);
  }
  // Sessions are owned through leases taken under the node id; without one, two nodes would both run a session.
  if (cluster === null) {
    throw new ConfigError(`${source} needs a node id (--node-id or BERTH_NODE_ID): each node on the bus is named, and owns its sessions under that name`);
  }
  return given;
}

/** The bus URL as it may be logged: a password (nats://user:pass@host) replaced, like a store URL's. */
export const redactBusUrl = redactStoreUrl;
