import { PgConnections, type PgDbOptions } from './connections.js';
import type { Statement } from './pipeline.js';
import type { DueWrite, PromisedWrites, Queryer } from './queryer.js';
import type { WriteFence } from './write-fence.js';
import { NODE, type Writer } from './writers.js';

export { LeaseLostError, type WriteFence } from './write-fence.js';
export type { DueWrite, PromisedWrites, Queryer } from './queryer.js';
export { READ_POOL_SIZE, type PgDbOptions } from './connections.js';
export { UnnamedWriteError } from './writers.js';

/**
 * The store's connections (`PgConnections`) as one writer sees them (docs/cluster-leases.md,
 * Fencing): `for(sessionId)` is the view whose writes a session makes, each carrying its lease
 * token in cluster mode; `nodeWide` the view of the node's own writes, made for no session. The
 * view `connect` answers names nobody: on a cluster node its writes to a session's table are
 * refused (`UnnamedWriteError`), so none slips through unfenced. Every view shares one queue.
 */
export class PgDb implements Queryer {
  readonly promised: PromisedWrites = {
    run: (sql, params = []) => this.connections.write(this.writer, sql, params, true),
    unit: (work) => this.connections.unit(this.writer, work, true),
  };

  private constructor(
    private readonly connections: PgConnections,
    private readonly writer: Writer,
  ) {}

  /** Opens the write connection to `url` (postgres://…), and a read pool unless `readers` is 0. */
  static async connect(url: string, options: PgDbOptions = {}): Promise<PgDb> {
    return new PgDb(await PgConnections.connect(url, options), undefined);
  }

  /** The writes session `sessionId` makes: fenced by its lease in cluster mode. */
  for(sessionId: string): PgDb {
    return new PgDb(this.connections, sessionId);
  }

  /** The writes this node makes for itself, no session's: upkeep, its gateway journal, module tokens. */
  get nodeWide(): PgDb {
    return new PgDb(this.connections, NODE);
  }

  /** Whether the write connection is up now (a dropped one is being re-established). */
  get connected(): boolean {
    return this.connections.connected;
  }

  /** Runs `setup` on every new write connection after a drop (a session-level lock the old one held). */
  onReconnect(setup: (q: Queryer) => Promise<void>): void {
    this.connections.onReconnect(setup);
  }

  /**
   * Cluster mode: `fenceOf` gives the fence of the session a write names, looked up when the
   * write is made; every such write runs in a transaction that first checks the lease.
   */
  fenceWith(fenceOf: (sessionId: string) => WriteFence): void {
    this.connections.fenceWith(fenceOf);
  }

  rows<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.connections.rows<R>(this.writer, { sql, params });
  }

  /** `statement`'s rows; as a new session's first write, one that can take its lease itself does (`Statement.leased`). */
  rowsOf<R>(statement: Statement): Promise<R[]> {
    return this.connections.rows<R>(this.writer, statement);
  }

  run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return this.connections.write(this.writer, sql, params, false);
  }

  script(sql: string): Promise<void> {
    return this.connections.script(sql);
  }

  /** Several statements in a row with nothing of anyone else's between them, not atomic. */
  unit<T>(work: (q: Queryer) => Promise<T>): Promise<T> {
    return this.connections.unit(this.writer, work, false);
  }

  /**
   * Several statements that commit together or not at all. `committed` runs right after
   * COMMIT, inside the unit, so the next unit already sees what it does (a cache update).
   */
  transaction<T>(work: (q: Queryer) => Promise<T>, committed?: (result: T) => void): Promise<T> {
    return this.connections.transaction(this.writer, work, committed);
  }

  /**
   * A unit of one write made when its turn comes, from what the units before it left (a cache
   * they advanced): fenced, one round trip. `make` answers undefined when it must read first;
   * then `fallback` runs as `unit` would run it. `done` runs once the write committed.
   */
  writeWhenDue<T>(make: () => DueWrite<T> | undefined, fallback: (q: Queryer) => Promise<T>): Promise<T> {
    return this.connections.writeWhenDue(this.writer, make, fallback);
  }

  /**
   * A write numbered when its turn comes from what committed before it (a transcript batch whose
   * seqs are cached), `make` answering the same until `done` runs. Fenced, it joins the writes
   * queued with it (docs/store.md, Group commit).
   */
  writeNumbered<T>(sessions: readonly string[], make: () => DueWrite<T>): Promise<T> {
    return this.connections.writeNumbered(this.writer, sessions, make);
  }

  /** `sql`'s rows, in a transaction that runs the statements `before` (a LOCK, a write) first: one round trip. */
  rowsAfter<R>(before: readonly Statement[], sql: string, params: readonly unknown[]): Promise<R[]> {
    return this.connections.rowsAfter<R>(this.writer, before, sql, params);
  }

  /** Waits for every unit submitted so far, then closes the connections. */
  close(): Promise<void> {
    return this.connections.close();
  }
}
