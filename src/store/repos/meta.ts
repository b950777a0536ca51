import type { Db } from '../sqlite.js';

/** The `meta` key/value table (migration 1): small facts a home keeps for good. */
export class SqliteMetaRepository {
  private readonly insertStmt;
  private readonly getStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)');
    this.getStmt = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
  }

  /** Stores `value` under `key` unless the key already holds one; returns the value the key holds now. */
  async claim(key: string, value: string): Promise<string> {
    this.insertStmt.run(key, value);
    return this.getStmt.get(key) as string;
  }
}
