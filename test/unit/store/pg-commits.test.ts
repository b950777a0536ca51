import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { PgDb } from '../../../src/store/pg/db.js';
import { startPostgres, postgresMissing, type PostgresServer } from '../../support/postgres.js';

/**
 * docs/store.md, Commits and Reads: a promised write commits with its WAL flushed even on a
 * database whose commits do not wait for it, the others do not wait unless the operator set the
 * database so, and a read on the pool sees the writes issued before it, awaited or not.
 */
const missing = postgresMissing();

const modeOf = async (q: { rows<R>(sql: string): Promise<R[]> }) => (await q.rows<{ synchronous_commit: string }>('SHOW synchronous_commit'))[0]!.synchronous_commit;

describe('the PostgreSQL store’s connections', { skip: missing }, () => {
  let server: PostgresServer;
  const opened: PgDb[] = [];
  const open = async (url: string) => {
    const db = await PgDb.connect(url);
    opened.push(db);
    return db;
  };
  /** A new database whose sessions start with `synchronous_commit` at `mode`. */
  const databaseAt = async (mode: 'on' | 'off') => {
    const url = await server.createDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET synchronous_commit = ${mode}`);
    await admin.end();
    return url;
  };
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    for (const db of opened) await db.close();
    await server?.stop();
  });

  it('a promised write waits for its flush on a database set not to, and the others do not', async () => {
    const db = await open(await databaseAt('off'));
    assert.equal(await db.promised.unit(modeOf), 'on');
    assert.equal(await db.unit(modeOf), 'off');
    assert.equal(await db.promised.unit(modeOf), 'on');
  });

  it('on a database set to flush every commit, every commit flushes', async () => {
    const db = await open(await databaseAt('on'));
    assert.equal(await db.unit(modeOf), 'on');
    assert.equal(await db.promised.unit(modeOf), 'on');
  });

  it('a read sees every write issued before it, though it runs on another connection', async () => {
    const db = await open(await server.createDatabase());
    await db.script('CREATE TABLE t (n BIGINT)');
    const reads: Promise<{ c: number }[]>[] = [];
    for (let i = 1; i <= 20; i++) {
      void db.run('INSERT INTO t (n) VALUES ($1)', [i]);
      reads.push(db.rows<{ c: number }>('SELECT count(*)::bigint AS c FROM t'));
    }
    const counts = (await Promise.all(reads)).map((r) => r[0]!.c);
    counts.forEach((c, i) => assert.ok(c >= i + 1, `read ${i + 1} saw ${c} rows`));
    const backends = await db.rows<{ n: number }>(`SELECT count(*)::bigint AS n FROM pg_stat_activity WHERE application_name = 'berth-read'`);
    assert.ok(backends[0]!.n >= 1, 'reads ran on the pool');
  });
});

describe('commits on a PostgreSQL left at its default durability', { skip: missing }, () => {
  let server: PostgresServer;
  let db: PgDb | undefined;
  before(async () => {
    server = await startPostgres({ durable: true });
  });
  after(async () => {
    await db?.close();
    await server?.stop();
  });

  it('ordinary commits do not wait for their flush, promised ones do', async () => {
    db = await PgDb.connect(await server.createDatabase());
    assert.equal(await db.unit(modeOf), 'off');
    assert.equal(await db.promised.unit(modeOf), 'on');
    await db.script('CREATE TABLE t (n BIGINT)');
    assert.equal(await db.promised.run('INSERT INTO t (n) VALUES ($1)', [1]), 1);
    assert.equal(await db.unit(modeOf), 'off', 'the flush was asked for that transaction only');
  });

  it('a promised write sent as one query stores its values exactly as bound ones', async () => {
    db ??= await PgDb.connect(await server.createDatabase());
    await db.script('CREATE TABLE v (k TEXT, s TEXT, n BIGINT, f DOUBLE PRECISION, b BYTEA, a TEXT[], t BOOLEAN)');
    const values = ["it's \\ a $1 \"quote\" ünïcode ✓\n", -9007199254740991, 0.125, Buffer.from([0, 1, 254, 255]), ['x', 'y"z', 'back\\slash', "o'k"], true];
    const insert = 'INSERT INTO v (k, s, n, f, b, a, t) VALUES ($1, $2, $3, $4, $5, $6::text[], $7)';
    await db.promised.run(insert, ['inlined', ...values]);
    await db.run(insert, ['bound', ...values]);
    await db.promised.run(insert, ['nulls', null, null, null, null, null, null]);
    const rows = await db.rows<Record<string, unknown>>('SELECT * FROM v ORDER BY k');
    const [bound, inlined, nulls] = rows;
    assert.deepEqual({ ...inlined, k: 'bound' }, bound);
    assert.deepEqual(bound!.s, values[0]);
    assert.deepEqual(bound!.a, values[4]);
    assert.deepEqual(nulls, { k: 'nulls', s: null, n: null, f: null, b: null, a: null, t: null });
  });
});
