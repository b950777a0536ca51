import type { Async } from '../async.js';
import type { SqliteMetaRepository } from '../repos/meta.js';
import type { PgDb } from './db.js';

/** The `meta` key/value table in PostgreSQL. */
export class PgMetaRepository implements Async<SqliteMetaRepository> {
  constructor(private readonly db: PgDb) {}

  /** Stores `value` under `key` unless the key already holds one; resolves to the value the key holds now. */
  claim(key: string, value: string): Promise<string> {
    // Two statements: the read takes a fresh snapshot, so it sees a value another daemon committed meanwhile.
    return this.db.unit(async (q) => {
      await q.run('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
      const [row] = await q.rows<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key]);
      return row!.value;
    });
  }
}
