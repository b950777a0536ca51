import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { LeaseKeeper } from '../../../src/cluster/leases.js';
import { silentLogger } from '../../../src/log.js';
import { LeaseLostError, PgDb } from '../../../src/store/pg/db.js';
import { PgLeaseRepository } from '../../../src/store/pg/leases.js';
import { PgTranscriptRepository } from '../../../src/store/pg/transcript.js';
import { queriesOf, statementsOf } from '../../support/pg-queries.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../../support/postgres.js';

/**
 * docs/store.md, Round trips: fenced single-statement writes queued at the same moment by
 * different sessions go as one transaction; one that fails fails alone, the others commit.
 * A transaction's statements go in one round trip, each a prepared statement of the write
 * connection, so PostgreSQL parses and plans a text once per connection.
 */
const missing = postgresMissing();

describe('group commit and pipelines of the PostgreSQL write connection', { skip: missing, timeout: 120_000 }, () => {
  let server: PostgresServer;
  let url: string;
  let db: PgDb;
  let leaseDb: PgDb;
  let repo: PgLeaseRepository;
  let n = 0;
  const sid = () => `00000000-0000-4000-9000-${String(++n).padStart(12, '0')}`;
  const lost: string[] = [];
  let node: LeaseKeeper;

  before(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    db = await PgDb.connect(url);
    leaseDb = await PgDb.connect(url, { readers: 0 });
    await db.script(`CREATE TABLE session_leases (session_id TEXT PRIMARY KEY, node_id TEXT NOT NULL, token BIGINT NOT NULL, expires_at BIGINT NOT NULL);
      CREATE TABLE t (k TEXT PRIMARY KEY);
      CREATE TABLE transcript (session_id TEXT NOT NULL, seq BIGINT NOT NULL, record_id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
        prompt_id TEXT, at BIGINT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session_id, seq))`);
    db.fenceWith((id) => node.fence(id));
    repo = new PgLeaseRepository(leaseDb);
    node = new LeaseKeeper({ repo, nodeId: 'a', leaseMs: 60_000, log: silentLogger(), onLost: (id) => lost.push(id) });
  });
  after(async () => {
    await Promise.all([db?.close(), leaseDb?.close()]);
    await server?.stop();
  });

  const insert = (sessionId: string, key: string) => db.for(sessionId).run('INSERT INTO t (k) VALUES ($1)', [key]);
  const keys = async (prefix: string) => (await db.rows<{ k: string }>('SELECT k FROM t WHERE k LIKE $1 ORDER BY k', [`${prefix}%`])).map((r) => r.k);

  it('writes of several sessions issued at once commit in fewer round trips than writes', async () => {
    const ids = Array.from({ length: 8 }, sid);
    for (const id of ids) await node.acquire(id);
    const { count, result } = await queriesOf(() => Promise.all(ids.map((id) => insert(id, `g-${id}`))));
    assert.deepEqual(result, ids.map(() => 1));
    assert.deepEqual(await keys('g-'), ids.map((id) => `g-${id}`).sort());
    // Issued in one tick, before the queue's first turn: one query.
    assert.equal(count, 1);
  });

  it('a failing write among them fails alone; the others commit', async () => {
    const ids = Array.from({ length: 4 }, sid);
    for (const id of ids) await node.acquire(id);
    await insert(ids[0]!, `dup-${ids[2]}`);
    const outcomes = await Promise.allSettled(ids.map((id) => insert(id, `dup-${id}`)));
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    assert.equal((outcomes[2] as PromiseRejectedResult).reason.code, '23505');
    assert.deepEqual(await keys('dup-'), ids.map((id) => `dup-${id}`).sort());
  });

  it('a refused lease among them refuses its own write only, and is reported lost', async () => {
    const ids = Array.from({ length: 4 }, sid);
    for (const id of ids) await node.acquire(id);
    // Another node took ids[1] (its lease run out, here: made to).
    await leaseDb.run(`UPDATE session_leases SET node_id = 'b', token = token + 1 WHERE session_id = $1`, [ids[1]]);
    const outcomes = await Promise.allSettled(ids.map((id) => insert(id, `ref-${id}`)));
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    assert.ok((outcomes[1] as PromiseRejectedResult).reason instanceof LeaseLostError);
    assert.deepEqual(await keys('ref-'), [ids[0], ids[2], ids[3]].map((id) => `ref-${id}`).sort());
    assert.deepEqual(lost, [ids[1]]);
  });

  it("new sessions' leases are taken in the batch, once each, with the tokens later writes carry", async () => {
    const ids = Array.from({ length: 3 }, sid);
    for (const id of ids) node.reserve(id);
    // Two writes of each new session, all issued at once: one query, each lease taken by its session's first write.
    const { count, result } = await queriesOf(() => Promise.all(ids.flatMap((id) => [insert(id, `new-${id}-1`), insert(id, `new-${id}-2`)])));
    assert.deepEqual(result, ids.flatMap(() => [1, 1]));
    assert.equal(count, 1);
    for (const id of ids) {
      const row = await repo.get(id);
      assert.equal(row?.nodeId, 'a');
      assert.equal(node.fence(id).token(), row?.token);
    }
    assert.equal((await Promise.all(ids.map((id) => insert(id, `new-${id}-3`)))).length, 3);
  });

  it("transcript batches join the other sessions' writes; two of one session are numbered one after the other", async () => {
    const seqs = new Map<string, number>();
    const transcript = new PgTranscriptRepository(db, seqs);
    const ids = Array.from({ length: 3 }, sid);
    for (const id of ids) await node.acquire(id);
    const record = (sessionId: string, kind: string) => ({ sessionId, recordId: `${kind}-${sessionId}`, kind, promptId: null, at: 1, data: {} });
    const append = (sessionId: string, kind: string) => new PgTranscriptRepository(db.for(sessionId), seqs).append([record(sessionId, kind)]);
    // Each session's seq read once (not yet cached: a unit of its own).
    for (const id of ids) await append(id, 'first');
    const { count, result } = await queriesOf(() =>
      Promise.all([append(ids[0]!, 'a'), insert(ids[1]!, `tr-${ids[1]}`), append(ids[1]!, 'b'), append(ids[0]!, 'c'), append(ids[2]!, 'd')]),
    );
    // The second append of ids[0] waits for the next batch, numbered after the first one committed.
    assert.equal(count, 2);
    assert.deepEqual(
      result.map((r) => (typeof r === 'number' ? r : r.map((x) => [x.kind, x.seq]))),
      [[['a', 2]], 1, [['b', 2]], [['c', 3]], [['d', 2]]],
    );
    assert.deepEqual((await transcript.all(ids[0]!)).map((r) => [r.kind, r.seq]), [['first', 1], ['a', 2], ['c', 3]]);
    assert.equal(await transcript.count(ids[2]!), 2);
  });

  it('a transcript batch whose group commit failed is numbered the same when it runs alone', async () => {
    const seqs = new Map<string, number>();
    const transcript = new PgTranscriptRepository(db, seqs);
    const ids = Array.from({ length: 2 }, sid);
    for (const id of ids) await node.acquire(id);
    await insert(ids[0]!, `fail-${ids[1]}`);
    const append = (sessionId: string, kind: string) =>
      new PgTranscriptRepository(db.for(sessionId), seqs).append([{ sessionId, recordId: `${kind}-${sessionId}`, kind, promptId: null, at: 1, data: {} }]);
    await append(ids[0]!, 'first');
    const outcomes = await Promise.allSettled([append(ids[0]!, 'kept'), insert(ids[1]!, `fail-${ids[1]}`)]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected']);
    assert.deepEqual((await transcript.all(ids[0]!)).map((r) => [r.kind, r.seq]), [['first', 1], ['kept', 2]]);
    await append(ids[0]!, 'next');
    assert.deepEqual((await transcript.all(ids[0]!)).map((r) => r.seq), [1, 2, 3]);
  });

  /** The write connection's prepared statements whose text contains `part`. */
  const prepared = async (part: string) =>
    (await db.unit((q) => q.rows<{ statement: string }>('SELECT statement FROM pg_prepared_statements'))).filter((r) => r.statement.includes(part));

  it("a session's writes are one round trip each and prepare their statements once", async () => {
    const id = sid();
    node.reserve(id);
    const write = (k: string) => insert(id, `pp-${k}`);
    // The first write takes the lease, the others check it.
    for (const k of ['a', 'b', 'c', 'd']) assert.deepEqual(await queriesOf(() => write(k)), { count: 1, result: 1 });
    assert.equal((await prepared('INSERT INTO t (k) VALUES ($1)')).length, 1);
    assert.equal((await prepared('FOR SHARE')).length, 1, 'the lease check');
    assert.equal((await prepared('WITH taken AS')).length, 1, 'the lease taken');
  });

  it('a write refused by the database leaves the statements usable', async () => {
    const id = sid();
    await node.acquire(id);
    const write = (k: string) => insert(id, `pp-${k}`);
    await assert.rejects(write('a'), { code: '23505' });
    assert.equal(await write('e'), 1);
  });

  it("a write sent whole commits at its pipeline's end: no BEGIN or COMMIT, and a failure leaves nothing of it", async () => {
    const id = sid();
    await node.acquire(id);
    const { sent } = await statementsOf(() => insert(id, 'wh-a'));
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0]!.map((text) => text.split(' ')[0]), ['SELECT', 'INSERT']);
    const RETURNING = 'INSERT INTO t (k) VALUES ($1) RETURNING k';
    await assert.rejects(db.rowsAfter([{ sql: 'INSERT INTO t (k) VALUES ($1)', params: ['wh-b'] }], RETURNING, ['wh-a']), { code: '23505' });
    assert.deepEqual(await keys('wh-'), ['wh-a']);
    assert.deepEqual(await db.rowsAfter([{ sql: 'INSERT INTO t (k) VALUES ($1)', params: ['wh-c'] }], RETURNING, ['wh-d']), [{ k: 'wh-d' }]);
    assert.deepEqual(await keys('wh-'), ['wh-a', 'wh-c', 'wh-d']);
  });

  it('a takeover committed while a write waits for the lease row refuses the write', async () => {
    const id = sid();
    await node.acquire(id);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`UPDATE session_leases SET node_id = 'b', token = token + 1 WHERE session_id = $1`, [id]);
      const write = insert(id, 'tk-a');
      write.catch(() => undefined);
      // The write's lease check waits for the takeover's row lock (seen from outside the takeover's
      // transaction, whose view of pg_stat_activity is taken once).
      const waiting = `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR SHARE%'`;
      while ((await leaseDb.rows(waiting)).length === 0) await delay(5);
      await other.query('COMMIT');
      await assert.rejects(write, LeaseLostError);
      assert.deepEqual(await keys('tk-'), []);
    } finally {
      await other.end();
    }
  });

  it('a statement that cannot be prepared fails its query, and the statements after it are prepared when next used', async () => {
    const RETURNING = 'INSERT INTO t (k) VALUES ($1) RETURNING k';
    await assert.rejects(db.rowsAfter([{ sql: 'INSERT INTO no_such_table VALUES (1)', params: [] }], RETURNING, ['pp-x']), { code: '42P01' });
    // Its Parse never ran: were it taken as prepared, this would fail with "prepared statement does not exist".
    assert.deepEqual(await db.rowsAfter([], RETURNING, ['pp-y']), [{ k: 'pp-y' }]);
    assert.deepEqual(await keys('pp-x'), []);
  });
});
