import pg from 'pg';
import { BerthError } from '../../protocol/errors/index.js';
import type { Queryer } from './db.js';
import { type Statement, StatementsQuery } from './pipeline.js';

/** The first wait before connecting again after the connection dropped: a restart takes about a second. */
export const RECONNECT_MIN_MS = 100;
/** The longest wait between attempts: a server back after a long outage is found within this. */
export const RECONNECT_MAX_MS = 5_000;
/** A connection attempt the server does not answer within this counts as failed (and is retried). */
export const CONNECT_TIMEOUT_MS = 5_000;

/** BIGINT (OID 20) comes back as a JS number, as better-sqlite3 returns SQLite's 64-bit integers. */
const INT8_OID = 20;
export const PG_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID && format !== 'binary' ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** The options every connection of the store opens with; `application_name` tells them apart in pg_stat_activity. */
export function connectionOptions(url: string, applicationName: string): pg.ClientConfig {
  return { connectionString: url, types: PG_TYPES, application_name: applicationName, keepAlive: true, connectionTimeoutMillis: CONNECT_TIMEOUT_MS };
}

/** What the store answers while its database is away: 503, retry later (docs/store.md, Reconnecting). */
export function storeUnavailable(cause: unknown): BerthError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new BerthError('storage_unavailable', `The database is not reachable: ${message}`, { cause: 'postgres_unreachable' });
}

/**
 * Whether `err` says the connection is gone rather than that the statement failed:
 * a socket error, the server shutting down (SQLSTATE class 57P) or a connection exception (class 08).
 */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (/^(ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND)/.test(code) || /^(08|57P)/.test(code))) return true;
  const message = err instanceof Error ? err.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(message);
}

/** A name per distinct SQL text, for named prepared statements: each connection parses and plans it once. */
export class StatementNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly prefix: string) {}

  of(text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      name = `${this.prefix}${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return name;
  }

  clear(): void {
    this.names.clear();
  }
}

/**
 * One PostgreSQL connection that comes back by itself (docs/store.md, Reconnecting). When it
 * drops, `client()` refuses at once with a retryable 503 while attempts to connect again run
 * with a doubling wait; `setup` runs on every new connection before it is used (a session-level
 * lock the old one held). Prepared statement names are per connection, so they start over.
 */
export class PgLink {
  private current: pg.Client | undefined;
  private failure: unknown;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private setups: Array<(client: pg.Client) => Promise<void>> = [];
  private readonly names = new StatementNames('s');
  /** Commits on this connection return before their WAL is flushed (synchronous_commit = off). */
  private relaxed = false;

  private constructor(
    private readonly config: pg.ClientConfig,
    private readonly onChange: (up: boolean, err?: unknown) => void,
  ) {}

  static async open(config: pg.ClientConfig, onChange: (up: boolean, err?: unknown) => void = () => undefined): Promise<PgLink> {
    const link = new PgLink(config, onChange);
    link.adopt(await link.dial());
    return link;
  }

  /** The live connection, or a 503 `storage_unavailable` while it is being re-established. */
  client(): pg.Client {
    if (this.current) return this.current;
    throw storeUnavailable(this.failure ?? new Error('the connection is closed'));
  }

  get up(): boolean {
    return this.current !== undefined;
  }

  /**
   * Whether an ordinary commit returns before its WAL is on disk: Berth's own choice on a database
   * that leaves synchronous_commit at PostgreSQL's default, or the operator's `off`. A promised
   * write then asks for its flush itself (docs/store.md, Commits).
   */
  get commitsRelaxed(): boolean {
    return this.relaxed;
  }

  /** Runs on every new connection before it is used; a failure there fails that connection (tried again later). */
  onReconnect(setup: (client: pg.Client) => Promise<void>): void {
    this.setups.push(setup);
  }

  /** The name of `text` as a prepared statement of the current connection: parsed and planned once. */
  statementName(text: string): string {
    return this.names.of(text);
  }

  /** `statements` in one round trip on the current connection, each a prepared statement of it (`StatementsQuery`): one result each. */
  pipeline(statements: readonly Statement[]): Promise<pg.QueryResult[]> {
    const query = new StatementsQuery(statements, (text) => this.names.of(text));
    this.client().query(query);
    return query.answers;
  }

  /** The connection is broken (a query failed with a connection error): drop it and start reconnecting. */
  broken(err: unknown): void {
    const client = this.current;
    if (!client) return;
    this.current = undefined;
    this.failure = err;
    this.names.clear();
    client.end().catch(() => undefined);
    this.onChange(false, err);
    this.schedule();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.current;
    this.current = undefined;
    await client?.end();
  }

  private async dial(): Promise<pg.Client> {
    const client = new pg.Client(this.config);
    // A dropped connection fails the queries after it; it must not crash the process.
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('Connection terminated')));
    try {
      await client.connect();
      this.relaxed = await relaxCommits(client);
      for (const setup of this.setups) await setup(client);
    } catch (err) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw err;
    }
    return client;
  }

  private adopt(client: pg.Client): void {
    this.current = client;
    this.failure = undefined;
    this.attempt = 0;
  }

  private lost(client: pg.Client, err: unknown): void {
    if (client === this.current && !this.closed) this.broken(err);
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    const wait = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** this.attempt);
    this.attempt += 1;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.dial().then(
        (client) => {
          if (this.closed) return void client.end().catch(() => undefined);
          this.adopt(client);
          this.onChange(true);
        },
        (err: unknown) => {
          this.failure = err;
          this.schedule();
        },
      );
    }, wait);
    this.timer.unref();
  }
}

/**
 * Ordinary commits of a Berth connection do not wait for their WAL flush, the durability of the
 * SQLite default (docs/store.md, Commits), unless the operator set synchronous_commit for this
 * database, role, server or URL: then their setting holds. Answers whether commits are relaxed.
 */
async function relaxCommits(client: pg.Client): Promise<boolean> {
  const [row] = (await client.query<{ setting: string; source: string }>(`SELECT setting, source FROM pg_settings WHERE name = 'synchronous_commit'`)).rows;
  if (row?.source !== 'default') return row?.setting === 'off';
  await client.query('SET synchronous_commit = off');
  return true;
}

/** A Queryer straight on `client`, outside any queue (a reconnect's setup). */
export function clientQueryer(client: pg.Client): Queryer {
  return {
    rows: (sql, params = []) => client.query(sql, params as unknown[]).then((r) => r.rows),
    run: (sql, params = []) => client.query(sql, params as unknown[]).then((r) => r.rowCount ?? 0),
    script: (sql) => client.query(sql).then(() => undefined),
  };
}
