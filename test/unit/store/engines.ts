/**
 * The two store engines behind one asynchronous face, for the repository suite that
 * runs once per engine. SQLite's repositories are synchronous today: `asyncOf` wraps
 * them here until the async interfaces land (issue 18), calling through at once so
 * the order of calls is the order of effects, as on PostgreSQL's queue.
 */
import type { Async } from '../../../src/store/async.js';
import { openStore } from '../../../src/store/db.js';
import { PgCheckpointRepository } from '../../../src/store/pg/checkpoints.js';
import { PgGatewayCallRepository } from '../../../src/store/pg/gateway-calls.js';
import { PgMetaRepository } from '../../../src/store/pg/meta.js';
import { PgModuleInboxRepository } from '../../../src/store/pg/module-inbox.js';
import { PgModuleTabRepository } from '../../../src/store/pg/module-tabs.js';
import { PgPermissionGrantRepository } from '../../../src/store/pg/permission-grants.js';
import { PgPromptRepository } from '../../../src/store/pg/prompts.js';
import { PgReceiptRepository } from '../../../src/store/pg/receipts.js';
import { PgSessionRepository } from '../../../src/store/pg/sessions.js';
import { openPgStore, type PgStore } from '../../../src/store/pg/store.js';
import { PgTokenRepository } from '../../../src/store/pg/tokens.js';
import { PgTranscriptRepository } from '../../../src/store/pg/transcript.js';
import { SqliteCheckpointRepository } from '../../../src/store/repos/checkpoints.js';
import { SqliteGatewayCallRepository } from '../../../src/store/repos/gateway-calls.js';
import { SqliteMetaRepository } from '../../../src/store/repos/meta.js';
import { SqliteModuleInboxRepository } from '../../../src/store/repos/module-inbox.js';
import { SqliteModuleTabRepository } from '../../../src/store/repos/module-tabs.js';
import { SqlitePermissionGrantRepository } from '../../../src/store/repos/permission-grants.js';
import { SqlitePromptRepository } from '../../../src/store/repos/prompts.js';
import { SqliteReceiptRepository } from '../../../src/store/repos/receipts.js';
import { SqliteSessionRepository } from '../../../src/store/repos/sessions.js';
import { SqliteTokenRepository } from '../../../src/store/repos/tokens.js';
import { SqliteTranscriptRepository } from '../../../src/store/repos/transcript.js';
import type { Db } from '../../../src/store/sqlite.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../../support/postgres.js';
import { removeDir, tempDir } from '../../support/tmp.js';

export interface AsyncRepos {
  readonly sessions: Async<SqliteSessionRepository>;
  readonly transcript: Async<SqliteTranscriptRepository>;
  readonly prompts: Async<SqlitePromptRepository<string>>;
  readonly receipts: Async<SqliteReceiptRepository<unknown>>;
  readonly tokens: Async<SqliteTokenRepository<string>>;
  readonly meta: Async<SqliteMetaRepository>;
  readonly moduleTabs: Async<SqliteModuleTabRepository>;
  readonly moduleInbox: Async<SqliteModuleInboxRepository<string>>;
  readonly gatewayCalls: Async<SqliteGatewayCallRepository>;
  readonly grants: Async<SqlitePermissionGrantRepository<string, string>>;
  readonly checkpoints: Async<SqliteCheckpointRepository>;
}

/** One empty store of an engine: its repositories, a second connection to the same data, raw SQL for what no repository writes. */
export interface Handle {
  readonly repos: AsyncRepos;
  /** Repositories on another connection to the same database (another daemon, as far as the store can tell). */
  second(): Promise<AsyncRepos>;
  /** Runs SQL valid in both dialects, outside any repository (damaging a row, revoking a token). */
  raw(sql: string): Promise<void>;
  close(): Promise<void>;
}

export interface Engine {
  readonly name: string;
  /** Why this engine cannot run here (the tests skip), or undefined. */
  readonly skip: string | undefined;
  start(): Promise<void>;
  fresh(): Promise<Handle>;
  stop(): Promise<void>;
}

/** A synchronous repository as its asynchronous twin: calls run at once; a throw becomes a rejection. */
export function asyncOf<T extends object>(repo: T): Async<T> {
  return new Proxy(repo, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          return Promise.resolve((value as (...a: unknown[]) => unknown).apply(target, args));
        } catch (err) {
          return Promise.reject(err);
        }
      };
    },
  }) as unknown as Async<T>;
}

function sqliteRepos(db: Db): AsyncRepos {
  return {
    sessions: asyncOf(new SqliteSessionRepository(db)),
    transcript: asyncOf(new SqliteTranscriptRepository(db)),
    prompts: asyncOf(new SqlitePromptRepository<string>(db)),
    receipts: asyncOf(new SqliteReceiptRepository<unknown>(db)),
    tokens: asyncOf(new SqliteTokenRepository<string>(db)),
    meta: asyncOf(new SqliteMetaRepository(db)),
    moduleTabs: asyncOf(new SqliteModuleTabRepository(db)),
    moduleInbox: asyncOf(new SqliteModuleInboxRepository<string>(db)),
    gatewayCalls: asyncOf(new SqliteGatewayCallRepository(db)),
    grants: asyncOf(new SqlitePermissionGrantRepository<string, string>(db)),
    checkpoints: asyncOf(new SqliteCheckpointRepository(db)),
  };
}

export function pgRepos(store: PgStore): AsyncRepos {
  const db = store.db;
  return {
    sessions: new PgSessionRepository(db),
    transcript: new PgTranscriptRepository(db),
    prompts: new PgPromptRepository<string>(db),
    receipts: new PgReceiptRepository<unknown>(db),
    tokens: new PgTokenRepository<string>(db),
    meta: new PgMetaRepository(db),
    moduleTabs: new PgModuleTabRepository(db),
    moduleInbox: new PgModuleInboxRepository<string>(db),
    gatewayCalls: new PgGatewayCallRepository(db),
    grants: new PgPermissionGrantRepository<string, string>(db),
    checkpoints: new PgCheckpointRepository(db),
  };
}

export const sqliteEngine: Engine = {
  name: 'SQLite',
  skip: undefined,
  async start() {},
  async fresh() {
    const home = tempDir('berth-store-');
    const store = openStore(home);
    const others: { close(): void }[] = [];
    return {
      repos: sqliteRepos(store.db),
      async second() {
        const other = openStore(home);
        others.push(other);
        return sqliteRepos(other.db);
      },
      async raw(sql) {
        store.db.exec(sql);
      },
      async close() {
        for (const o of others) o.close();
        store.close();
        removeDir(home);
      },
    };
  },
  async stop() {},
};

/** PostgreSQL: one server, one database and one base connection for the test file, emptied before each test. */
export function postgresEngine(): Engine {
  let server: PostgresServer | undefined;
  let base: PgStore | undefined;
  let url = '';
  let reset = '';
  return {
    name: 'PostgreSQL',
    skip: postgresMissing(),
    async start() {
      server = await startPostgres();
      url = await server.createDatabase();
      base = await openPgStore(url);
      const tables = await base.db.rows<{ name: string }>(
        `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename != 'schema_migrations'`,
      );
      reset = `TRUNCATE ${tables.map((t) => t.name).join(', ')} RESTART IDENTITY`;
    },
    async fresh() {
      const store = base!;
      await store.db.script(reset);
      const others: PgStore[] = [];
      return {
        // New repository objects each test: no cache (the transcript's seqs) outlives its data.
        repos: pgRepos(store),
        async second() {
          const other = await openPgStore(url);
          others.push(other);
          return pgRepos(other);
        },
        raw: (sql) => store.db.script(sql),
        async close() {
          await Promise.all(others.map((o) => o.close()));
        },
      };
    },
    async stop() {
      await base?.close();
      await server?.stop();
    },
  };
}
