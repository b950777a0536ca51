import { redactStoreUrl, type StoreChoice } from '../config/store.js';
import { openStore, type Store } from '../store/db.js';
import { secureHome } from '../store/home-mode.js';
import type { PgStore } from '../store/pg/store.js';
import type { Logger } from '../log.js';
import { sqliteRepositories, type Repositories } from './repositories.js';

/** The engine under the core: SQLite in the home folder (the default), or a PostgreSQL server (docs/store.md). */
export type DaemonStore = Store | PgStore;

/**
 * Opens the store `choice` names, migrated, with its repositories; a PostgreSQL store is
 * this daemon's alone unless it is a node of a cluster (`nodeId` given). The
 * PostgreSQL code and the `pg` package are loaded only when chosen, so the
 * SQLite daemon starts as before.
 */
export async function openDaemonStore(choice: StoreChoice, home: string, nodeId: string | null = null, log?: Logger): Promise<{ store: DaemonStore; repos: Repositories }> {
  if (choice.engine === 'sqlite') {
    const store = openStore(home);
    return { store, repos: sqliteRepositories(store.db) };
  }
  // The home still holds the sockets, the lock, config and agent homes: as private as with SQLite.
  secureHome(home);
  const [{ openPgStore, claimSoleDaemon }, { postgresRepositories }] = await Promise.all([import('../store/pg/store.js'), import('./pg-repositories.js')]);
  const store = await openPgStore(choice.url, undefined, {
    // An operator sees the outage and the recovery in the log, not only as 503s.
    onChange: (up, err) => (up ? log?.info('the database connection is back') : log?.warn({ err }, 'lost the database connection; reconnecting')),
  });
  // A node of a cluster shares the database: its sessions are owned through leases instead (docs/cluster-leases.md).
  if (nodeId === null && !(await claimSoleDaemon(store.db))) {
    await store.close();
    throw new StoreInUseError(`another Berth daemon is using the database ${redactStoreUrl(choice.url)}; give every daemon a --node-id to run several on one database`);
  }
  return { store, repos: postgresRepositories(store.db, nodeId) };
}

/** The chosen database is held by another daemon. */
export class StoreInUseError extends Error {
  override name = 'StoreInUseError';
}
