/**
 * The asynchronous twin of a repository class: every method keeps its name and
 * arguments and returns a Promise of what the synchronous method returns. A
 * PostgreSQL repository declares `implements Async<SqliteXRepository<…>>`, so the
 * compiler checks that it answers every call the SQLite one does, with the same rows.
 */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};
