import pg from 'pg';
import { BerthError } from '../../protocol/errors/index.js';
import { FENCE_CHECK_SQL } from './leases.js';

/** What a repository runs its SQL on: a whole query's rows, or the number of rows a write touched. */
export interface Queryer {
  rows<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Statements without parameters, several allowed (schema changes). */
  script(sql: string): Promise<void>;
}

/**
 * The session a write is made for, in cluster mode (docs/cluster-leases.md): the write
 * lands only while that session's lease still has this node and this token.
 */
export interface WriteFence {
  readonly sessionId: string;
  readonly nodeId: string;
  /** The token this node holds now; undefined once it knows the lease is gone. */
  token(): number | undefined;
  /** The database refused a write: another node has taken the session. */
  refused(): void;
}

/** A fenced write refused: this node no longer owns the session; a client retries and lands on the owner. */
export class LeaseLostError extends BerthError {
  override name = 'LeaseLostError';
  constructor(readonly sessionId: string) {
    super('session_on_other_node', `This node no longer holds the lease of session ${sessionId}`, { sessionId });
  }
}

/** A statement that only reads needs no fence (a read of a stale owner harms nobody). */
const READ_ONLY = /^\s*SELECT\b/i;

/** BIGINT (OID 20) comes back as a JS number, as better-sqlite3 returns SQLite's 64-bit integers. */
const INT8_OID = 20;
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID && format !== 'binary' ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * One PostgreSQL connection and a FIFO of units of work on it (docs/store.md, "Ordering of one daemon's queries").
 *
 * Every call enqueues its unit synchronously, when it is made, and units run one
 * at a time in that order: a write the core issued without awaiting it is on the
 * server before any read issued after it, as with the synchronous SQLite store.
 * A transaction is one unit, so no other caller's statement can land inside it
 * (or be rolled back with it). Inside `unit`/`transaction`, use only the Queryer
 * handed in: calling this PgDb again from inside would wait for the unit itself.
 */
export class PgDb implements Queryer {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly names = new Map<string, string>();
  private readonly direct: Queryer;
  private failure: Error | undefined;
  private fenceOf: () => WriteFence | undefined = () => undefined;

  constructor(private readonly client: pg.Client) {
    // A dropped connection fails the queries after it; it must not crash the process.
    client.on('error', (err) => {
      this.failure = err;
    });
    this.direct = {
      rows: (sql, params) => this.exec(sql, params).then((r) => r.rows),
      run: (sql, params) => this.exec(sql, params).then((r) => r.rowCount ?? 0),
      script: (sql) => client.query(sql).then(() => undefined),
    };
  }

  /** Opens one connection to `url` (postgres://…). */
  static async connect(url: string): Promise<PgDb> {
    // application_name lets an operator tell Berth's connection apart in pg_stat_activity.
    const client = new pg.Client({ connectionString: url, types: TYPES, application_name: 'berth', keepAlive: true });
    await client.connect();
    return new PgDb(client);
  }

  /**
   * Cluster mode: `current` names the session a call is made for (read when the call is
   * made, so from its async context), and every write made for one runs in a transaction
   * that first checks the lease (docs/cluster-leases.md, Fencing).
   */
  fenceWith(current: () => WriteFence | undefined): void {
    this.fenceOf = current;
  }

  rows<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const fence = READ_ONLY.test(sql) ? undefined : this.fenceOf();
    if (fence) return this.enqueue(() => this.atomically(fence, (q) => q.rows<R>(sql, params)));
    return this.enqueue(() => this.direct.rows<R>(sql, params));
  }

  run(sql: string, params: readonly unknown[] = []): Promise<number> {
    const fence = this.fenceOf();
    if (fence) return this.enqueue(() => this.atomically(fence, (q) => q.run(sql, params)));
    return this.enqueue(() => this.direct.run(sql, params));
  }

  script(sql: string): Promise<void> {
    return this.enqueue(() => this.direct.script(sql));
  }

  /** Several statements in a row with nothing of anyone else's between them, not atomic. */
  unit<T>(work: (q: Queryer) => Promise<T>): Promise<T> {
    // Fenced, it becomes a transaction: the lease check holds its row lock until the last statement.
    const fence = this.fenceOf();
    if (fence) return this.enqueue(() => this.atomically(fence, work));
    return this.enqueue(() => work(this.direct));
  }

  /**
   * Several statements that commit together or not at all. `committed` runs right after
   * COMMIT, inside the unit, so the next unit already sees what it does (a cache update).
   */
  transaction<T>(work: (q: Queryer) => Promise<T>, committed?: (result: T) => void): Promise<T> {
    const fence = this.fenceOf();
    return this.enqueue(() => this.atomically(fence, work, committed));
  }

  private async atomically<T>(fence: WriteFence | undefined, work: (q: Queryer) => Promise<T>, committed?: (result: T) => void): Promise<T> {
    const token = fence?.token();
    // Known lost already: refused without a round trip.
    if (fence && token === undefined) throw new LeaseLostError(fence.sessionId);
    await this.client.query('BEGIN');
    let result: T;
    try {
      if (fence && (await this.direct.rows(FENCE_CHECK_SQL, [fence.sessionId, token, fence.nodeId])).length === 0) {
        throw new LeaseLostError(fence.sessionId);
      }
      result = await work(this.direct);
    } catch (err) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      if (fence && err instanceof LeaseLostError) fence.refused();
      throw err;
    }
    await this.client.query('COMMIT');
    committed?.(result);
    return result;
  }

  /** Waits for every unit submitted so far, then closes the connection. */
  async close(): Promise<void> {
    await this.tail;
    await this.client.end();
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(() => {
      if (this.failure) throw this.failure;
      return work();
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Each distinct text becomes a named prepared statement of this connection: parsed and planned once. */
  private exec(text: string, values: readonly unknown[] = []): Promise<pg.QueryResult> {
    let name = this.names.get(text);
    if (name === undefined) {
      name = `s${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return this.client.query({ name, text, values: values as unknown[] });
  }
}
