import { MIGRATIONS } from '../migrations/all.js';
import { SCHEMA_MIGRATIONS_SQL, type Migration } from '../migration.js';
import { PgDb, type PgDbOptions, type Queryer } from './db.js';
import { toPostgres } from './dialect.js';

/** The daemon's PostgreSQL store (docs/store.md): a write connection and a read pool, migrated on open. */
export interface PgStore {
  readonly engine: 'postgres';
  readonly db: PgDb;
  close(): Promise<void>;
}

/** Whether `url` names a PostgreSQL server (`postgres://…` or `postgresql://…`). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export async function openPgStore(url: string, migrations: readonly Migration[] = MIGRATIONS, options: PgDbOptions = {}): Promise<PgStore> {
  if (!isPostgresUrl(url)) throw new Error('a PostgreSQL store URL starts with postgres:// or postgresql://');
  const db = await PgDb.connect(url, options);
  try {
    await migratePg(db, migrations);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    engine: 'postgres',
    db,
    close() {
      closing ??= db.close();
      return closing;
    },
  };
}

/** Any fixed number: the advisory lock that keeps two daemons starting on one database from migrating at once. */
const MIGRATION_LOCK = 0x6265_7274;

/**
 * Applies the migrations not yet in schema_migrations, in id order, each in its own
 * transaction (PostgreSQL's schema changes are transactional), as `migrate` does on SQLite.
 */
export async function migratePg(db: PgDb, migrations: readonly Migration[]): Promise<void> {
  await db.unit(async (q) => {
    await q.rows('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await q.script(toPostgres(SCHEMA_MIGRATIONS_SQL));
      const applied = new Set((await q.rows<{ id: number }>('SELECT id FROM schema_migrations')).map((r) => r.id));
      for (const m of [...migrations].sort((a, b) => a.id - b.id)) {
        if (applied.has(m.id)) continue;
        await q.script('BEGIN');
        try {
          await q.script(toPostgres(m.sql));
          await q.run('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [m.id, m.name, Date.now()]);
          await q.script('COMMIT');
        } catch (err) {
          await q.script('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }
    } finally {
      await q.rows('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  });
}

/** Another fixed number: the advisory lock a daemon holds on its database for as long as its connection lives. */
const SOLE_DAEMON_LOCK = 0x6265_7275;

/**
 * Takes the database for this daemon alone, or says false when another daemon
 * holds it. Sessions are not yet owned per node (issue 18's leases), so two
 * daemons on one database could both run the same session; until then the
 * second is refused. A session-level advisory lock goes with the connection,
 * so a daemon that crashed holds nothing.
 */
export async function claimSoleDaemon(db: PgDb): Promise<boolean> {
  const claim = async (q: Queryer): Promise<boolean> => (await q.rows<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [SOLE_DAEMON_LOCK]))[0]?.ok === true;
  if (!(await claim(db))) return false;
  // The lock went with a dropped connection: the new one takes it again before serving, or is refused and retried.
  db.onReconnect(async (q) => {
    if (!(await claim(q))) throw new Error('another Berth daemon took the database while the connection was down');
  });
  return true;
}
