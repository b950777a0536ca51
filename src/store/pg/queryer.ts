/** What the PostgreSQL repositories hand the write connection (`PgDb`, db.ts) and run their SQL through. */

/** What a repository runs its SQL on: a whole query's rows, or the number of rows a write touched. */
export interface Queryer {
  rows<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Statements without parameters, several allowed (schema changes). */
  script(sql: string): Promise<void>;
}

/**
 * The writes a caller is told have happened (docs/architecture.md, Persistence): a prompt's row
 * before its 202, a receipt before its effect and its result before the answer, a gateway call's
 * row before its frame leaves. They commit with their WAL flushed even where the database lets
 * other commits return earlier (docs/store.md, Commits).
 */
export interface PromisedWrites {
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  unit<T>(work: (q: Queryer) => Promise<T>): Promise<T>;
}

/** One write a unit makes when its turn comes (`PgDb.writeWhenDue`, `PgDb.writeNumbered`), and what it answers once committed. */
export interface DueWrite<T> {
  readonly sql: string;
  readonly params: readonly unknown[];
  done(count: number): T;
}
