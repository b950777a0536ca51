/** One schema step. Applied once, in id order, inside a transaction; never edited after release. */
export interface Migration {
  readonly id: number;
  readonly name: string;
  readonly sql: string;
}

/** The table both engines record applied migrations in (SQLite text; PostgreSQL runs it through store/pg/dialect.ts). */
export const SCHEMA_MIGRATIONS_SQL =
  'CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)';
