import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { MIGRATIONS } from './migrations/all.js';
import { SCHEMA_MIGRATIONS_SQL, type Migration } from './migration.js';
import { privateFile, secureHome, tightenExisting } from './home-mode.js';
import type { Db } from './sqlite.js';

export type { Db };

/** The daemon's SQLite store (docs/architecture.md, Persistence): one file under the home folder, WAL mode. */
export interface Store {
  readonly engine: 'sqlite';
  readonly db: Db;
  readonly path: string;
  close(): void;
}

export const STORE_FILE = 'berth.db';

export function openStore(home: string, migrations: readonly Migration[] = MIGRATIONS): Store {
  secureHome(home);
  const path = join(home, STORE_FILE);
  // 0600 before SQLite opens it: SQLite gives its -wal and -shm files the database file's mode.
  privateFile(path);
  const fresh = statSync(path).size === 0;
  const db = openDatabase(path);
  // A new, empty file has nothing to lose: it is turned to WAL and given its tables without fsyncs (six of them, about
  // 20 ms of a fresh home's start). A crash in between leaves an empty or partly migrated file; the next start goes on
  // from there, each migration being one transaction.
  db.pragma(`synchronous = ${fresh ? 'OFF' : 'NORMAL'}`);
  db.pragma('journal_mode = WAL');
  tightenExisting([`${path}-wal`, `${path}-shm`]);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, migrations);
  // NORMAL in WAL mode still survives a process crash (only an OS crash can lose the last commits);
  // receipts that must survive power loss use `durably()` below.
  if (fresh) db.pragma('synchronous = NORMAL');
  let closed = false;
  return {
    engine: 'sqlite',
    db,
    path,
    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

export function migrate(db: Db, migrations: readonly Migration[]): void {
  db.exec(SCHEMA_MIGRATIONS_SQL);
  const applied = new Set(
    (db.prepare('SELECT id FROM schema_migrations').all() as { id: number }[]).map((r) => r.id),
  );
  const ordered = [...migrations].sort((a, b) => a.id - b.id);
  for (const m of ordered) {
    if (applied.has(m.id)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(m.id, m.name, Date.now());
    })();
  }
}

/**
 * Opens a SQLite file with better-sqlite3's addon named by path. Left to find it, better-sqlite3 asks the
 * `bindings` package, which tries a dozen places in turn (about 3 ms of every start); a built package keeps
 * it at one known place. Where that file is missing (another build layout), the package's own search runs.
 */
export function openDatabase(path: string): Db {
  return new Database(path, { nativeBinding: sqliteAddon() });
}

let addonPath: string | false | undefined;

function sqliteAddon(): string | undefined {
  addonPath ??= builtAddonPath() ?? false;
  return addonPath || undefined;
}

function builtAddonPath(): string | undefined {
  try {
    const packageJson = createRequire(import.meta.url).resolve('better-sqlite3/package.json');
    const addon = join(dirname(packageJson), 'build', 'Release', 'better_sqlite3.node');
    return existsSync(addon) ? addon : undefined;
  } catch {
    return undefined;
  }
}
