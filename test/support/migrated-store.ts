import { openStore, type Store } from '../../src/store/db.js';
import type { Migration } from '../../src/store/migration.js';
import { openPgStore, type PgStore } from '../../src/store/pg/store.js';
import { removeDir, tempDir } from './tmp.js';

/**
 * A store made by an older Berth: opened with the migrations `before` only, `seed` run on it there,
 * then opened again as this build opens it (every migration). `check` gets that store; it is closed
 * (and a SQLite home removed) afterwards.
 */
export async function sqliteMigratedFrom(before: readonly Migration[], seed: readonly string[], check: (store: Store) => Promise<void>): Promise<void> {
  const home = tempDir('migrated');
  try {
    const old = openStore(home, before);
    for (const sql of seed) old.db.exec(sql);
    old.close();
    const store = openStore(home);
    try {
      await check(store);
    } finally {
      store.close();
    }
  } finally {
    removeDir(home);
  }
}

/** The same on the PostgreSQL database at `url`. */
export async function pgMigratedFrom(url: string, before: readonly Migration[], seed: readonly string[], check: (store: PgStore) => Promise<void>): Promise<void> {
  const old = await openPgStore(url, before);
  for (const sql of seed) await old.db.run(sql);
  await old.close();
  const store = await openPgStore(url);
  try {
    await check(store);
  } finally {
    await store.close();
  }
}
