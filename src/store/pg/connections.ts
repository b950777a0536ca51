import pg from 'pg';
import { PgLink, StatementNames, clientQueryer, connectionOptions, isConnectionError, storeUnavailable } from './link.js';
import { LeaseLostError, type WriteFence, idTaken, leaseOf } from './write-fence.js';
import { OpeningQueryer, fenced, isFenceRefusal, opening, tokenTaken, whole } from './one-shot.js';
import { WriteBatcher } from './group-commit.js';
import type { Statement } from './pipeline.js';
import type { DueWrite, Queryer } from './queryer.js';
import { Fencing, READ_ONLY, type Writer } from './writers.js';

/** A SELECT that takes a lock or a session-level advisory lock belongs to the connection that holds it. */
const HOLDS_A_LOCK = /\bFOR\s+(UPDATE|SHARE|NO\s+KEY\s+UPDATE|KEY\s+SHARE)\b|\bpg_(try_)?advisory/i;

/**
 * Connections of the read pool: reads no longer queue behind each other or behind the
 * writes issued after them. A few suffice on a node's one event loop; each is a PostgreSQL
 * backend (max_connections is shared by every node of a cluster).
 */
export const READ_POOL_SIZE = 4;
/** A pooled connection idle this long is closed; the pool opens one again on demand. */
const READ_POOL_IDLE_MS = 30_000;

/** How the store's connections are opened. */
export interface PgDbOptions {
  /** Connections for reads besides the write connection; 0 reads on the write connection (the lease connection). */
  readonly readers?: number;
  /** Told when the write connection drops (with why) and when it is back. */
  readonly onChange?: (up: boolean, err?: unknown) => void;
  /** Shown in pg_stat_activity. */
  readonly applicationName?: string;
}

/**
 * A write connection with a FIFO of units of work on it, and a pool of read connections
 * (docs/store.md, "Ordering of one daemon's queries"); `PgDb` (db.ts) is how callers reach
 * it, each call naming whom it writes for (`Writer`).
 *
 * Every call enqueues its unit synchronously, when it is made, and units run one
 * at a time in that order: a write the core issued without awaiting it is on the
 * server before any read issued after it, as with the synchronous SQLite store.
 * A transaction is one unit, so no other caller's statement can land inside it
 * (or be rolled back with it). Inside `unit`/`transaction`, use only the Queryer
 * handed in: calling the store again from inside would wait for the unit itself.
 *
 * A plain read waits for every unit enqueued before it (so it sees this node's
 * earlier writes, committed), then runs on a pooled connection: it does not hold
 * up the writes issued after it, nor wait for the reads issued before it.
 */
export class PgConnections {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly direct: Queryer;
  /** Cluster mode only: a single daemon's writes carry no fence and name nobody. */
  private fencing: Fencing | undefined;
  /** Never cleared: a pooled connection that prepared a name keeps it until the pool closes that connection. */
  private readonly readNames = new StatementNames('r');
  private readonly batcher = new WriteBatcher({
    enqueue: (work) => this.enqueue(work),
    pipeline: (statements) => this.pipeline(statements),
    rollback: () => this.rollback(),
    alone: (fence, statements, flush) => this.oneShot(fence, statements, flush),
  });

  constructor(
    private readonly link: PgLink,
    private readonly pool?: pg.Pool,
  ) {
    this.direct = {
      rows: (sql, params) => this.exec(sql, params).then((r) => r.rows),
      run: (sql, params) => this.exec(sql, params).then((r) => r.rowCount ?? 0),
      script: (sql) => this.guard(this.link.client().query(sql)).then(() => undefined),
    };
  }

  /** Opens the write connection to `url` (postgres://…), and a read pool unless `readers` is 0. */
  static async connect(url: string, options: PgDbOptions = {}): Promise<PgConnections> {
    const name = options.applicationName ?? 'berth';
    const link = await PgLink.open(connectionOptions(url, name), options.onChange);
    const readers = options.readers ?? READ_POOL_SIZE;
    if (readers === 0) return new PgConnections(link);
    const pool = new pg.Pool({ ...connectionOptions(url, `${name}-read`), max: readers, idleTimeoutMillis: READ_POOL_IDLE_MS });
    // An idle pooled connection the server dropped is removed by the pool; the error must not crash the process.
    pool.on('error', () => undefined);
    return new PgConnections(link, pool);
  }

  get connected(): boolean {
    return this.link.up;
  }

  onReconnect(setup: (q: Queryer) => Promise<void>): void {
    this.link.onReconnect((client) => setup(clientQueryer(client)));
  }

  fenceWith(fenceOf: (sessionId: string) => WriteFence): void {
    this.fencing = new Fencing(fenceOf);
  }

  rows<R>(writer: Writer, statement: Statement): Promise<R[]> {
    const { sql, params } = statement;
    if (READ_ONLY.test(sql)) {
      if (this.pool && !HOLDS_A_LOCK.test(sql)) return this.read<R>(sql, params);
      return this.enqueue(() => this.direct.rows<R>(sql, params));
    }
    const refused = this.fencing?.refuses(writer, [statement]);
    if (refused) return Promise.reject(refused);
    const fence = this.fenceOf(writer);
    if (fence) return this.batcher.add(fence, [statement], false).then((r) => r.rows as R[]);
    return this.enqueue(() => this.direct.rows<R>(sql, params));
  }

  write(writer: Writer, sql: string, params: readonly unknown[], sync: boolean): Promise<number> {
    const refused = this.fencing?.refuses(writer, [{ sql, params }]);
    if (refused) return Promise.reject(refused);
    const fence = this.fenceOf(writer);
    const flush = sync && this.link.commitsRelaxed;
    if (fence || flush) return this.batcher.add(fence, [{ sql, params }], flush).then((r) => r.rowCount ?? 0);
    return this.enqueue(() => this.direct.run(sql, params));
  }

  script(sql: string): Promise<void> {
    return this.enqueue(() => this.direct.script(sql));
  }

  unit<T>(writer: Writer, work: (q: Queryer) => Promise<T>, sync: boolean): Promise<T> {
    // Fenced, it becomes a transaction: the lease check holds its row lock until the last statement.
    // Promised on a connection whose commits are relaxed, too: its commit alone waits for the flush.
    const fence = this.fenceOf(writer);
    const flush = sync && this.link.commitsRelaxed;
    if (fence || flush) return this.enqueue(() => this.atomically(writer, fence, work, undefined, flush));
    return this.enqueue(() => work(this.queryerFor(writer, this.direct)));
  }

  transaction<T>(writer: Writer, work: (q: Queryer) => Promise<T>, committed?: (result: T) => void): Promise<T> {
    const fence = this.fenceOf(writer);
    return this.enqueue(() => this.atomically(writer, fence, work, committed));
  }

  writeWhenDue<T>(writer: Writer, make: () => DueWrite<T> | undefined, fallback: (q: Queryer) => Promise<T>): Promise<T> {
    const fence = this.fenceOf(writer);
    return this.enqueue(async () => {
      const due = make();
      if (!due) return fence ? this.atomically(writer, fence, fallback) : fallback(this.queryerFor(writer, this.direct));
      const refused = this.fencing?.refuses(writer, [due]);
      if (refused) throw refused;
      if (fence) return due.done((await this.oneShot(fence, [due], false)).rowCount ?? 0);
      return due.done(await this.direct.run(due.sql, due.params));
    });
  }

  writeNumbered<T>(writer: Writer, sessions: readonly string[], make: () => DueWrite<T>): Promise<T> {
    const fence = this.fenceOf(writer);
    if (!fence) return this.enqueue(async () => {
      const due = make();
      const refused = this.fencing?.refuses(writer, [due]);
      if (refused) throw refused;
      return due.done(await this.direct.run(due.sql, due.params));
    });
    let due: DueWrite<T> | undefined;
    let answer: T;
    const statement = (): Statement => (due = make());
    const committed = (result: pg.QueryResult) => void (answer = due!.done(result.rowCount ?? 0));
    return this.batcher.addNumbered(fence, { sessions, statement, committed }).then(() => answer);
  }

  rowsAfter<R>(writer: Writer, before: readonly Statement[], sql: string, params: readonly unknown[]): Promise<R[]> {
    const statements = [...before, { sql, params }];
    const refused = this.fencing?.refuses(writer, statements);
    if (refused) return Promise.reject(refused);
    return this.batcher.add(this.fenceOf(writer), statements, false).then((r) => r.rows as R[]);
  }

  /** The fence of what `writer` writes; in a unit that names nobody, each statement is checked when it is made. */
  private fenceOf(writer: Writer): WriteFence | undefined {
    return this.fencing?.of(writer);
  }

  /** The Queryer a unit runs on: in cluster mode, checked statement by statement when the unit names nobody. */
  private queryerFor(writer: Writer, q: Queryer): Queryer {
    return this.fencing && writer === undefined ? this.fencing.guarded(q) : q;
  }

  /** BEGIN, the flush request of a promised unit and the lease check travel with the work's first statement. */
  private async atomically<T>(
    writer: Writer,
    fence: WriteFence | undefined,
    work: (q: Queryer) => Promise<T>,
    committed?: (result: T) => void,
    flush = false,
  ): Promise<T> {
    const { token, leaseMs } = leaseOf(fence);
    const start = opening(fence, token, flush, leaseMs);
    const q = new OpeningQueryer(this.direct, (statements) => this.pipeline(statements), start);
    let result: T;
    try {
      result = await work(this.queryerFor(writer, q));
      await q.open();
    } catch (err) {
      throw await this.rolledBack(fence, err, leaseMs);
    }
    await this.direct.script('COMMIT');
    if (leaseMs !== undefined) fence!.acquired?.(tokenTaken(q.openedWith!, start.length - 1));
    committed?.(result);
    return result;
  }

  /** A write in a transaction of its own, with its lease check, in one round trip (`whole`). */
  private async oneShot(fence: WriteFence | undefined, statements: readonly Statement[], flush: boolean): Promise<pg.QueryResult> {
    const { token, leaseMs } = leaseOf(fence);
    const write = fenced(fence, token, leaseMs, statements);
    const { sent, offset } = whole(write.statements, flush);
    try {
      const answers = await this.pipeline(sent);
      if (write.takenAt !== undefined) fence!.acquired?.(tokenTaken(answers, offset + write.takenAt));
      // One result per statement: the write's is the last of its own.
      return answers[offset + write.statements.length - 1]!;
    } catch (err) {
      throw await this.rolledBack(fence, err, leaseMs);
    }
  }

  /** After a unit failed: its transaction rolled back, and a refused lease check told as LeaseLostError (a new session's: its id is taken). */
  private async rolledBack(fence: WriteFence | undefined, err: unknown, leaseMs?: number): Promise<unknown> {
    await this.rollback();
    if (!fence || !(err instanceof LeaseLostError || isFenceRefusal(err))) return err;
    fence.refused();
    if (leaseMs !== undefined) return idTaken(fence.sessionId);
    return err instanceof LeaseLostError ? err : new LeaseLostError(fence.sessionId);
  }

  private async rollback(): Promise<void> {
    if (this.link.up) await this.link.client().query('ROLLBACK').catch(() => undefined);
  }

  /** Waits for every unit submitted so far, then closes the connections. */
  async close(): Promise<void> {
    await this.tail;
    await Promise.all([this.link.close(), this.pool?.end()]);
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    this.batcher.close();
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Statements in one round trip on the write connection, each prepared once per connection. */
  private pipeline(statements: readonly Statement[]): Promise<pg.QueryResult[]> {
    return this.guard(this.link.pipeline(statements));
  }

  /** After the units enqueued so far, on a pooled connection. */
  private read<R>(text: string, values: readonly unknown[]): Promise<R[]> {
    const pool = this.pool!;
    // It waits for the writes queued so far, not for the ones queued after it.
    this.batcher.close();
    return this.tail.then(() =>
      pool.query({ name: this.readNames.of(text), text, values: values as unknown[] }).then(
        (r) => r.rows as R[],
        (err: unknown) => {
          throw isConnectionError(err) ? storeUnavailable(err) : err;
        },
      ),
    );
  }

  /** Each distinct text becomes a named prepared statement of this connection: parsed and planned once. */
  private exec(text: string, values: readonly unknown[] = []): Promise<pg.QueryResult> {
    return this.guard(this.link.client().query({ name: this.link.statementName(text), text, values: values as unknown[] }));
  }

  /** A query that failed because the connection is gone: the link reconnects, the caller gets a 503. */
  private guard<T>(query: Promise<T>): Promise<T> {
    return query.catch((err: unknown) => {
      if (!isConnectionError(err)) throw err;
      this.link.broken(err);
      throw storeUnavailable(err);
    });
  }
}
