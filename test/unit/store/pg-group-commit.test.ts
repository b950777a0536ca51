import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { currentFence, runFenced } from '../../../src/cluster/fence.js';
import { LeaseKeeper } from '../../../src/cluster/leases.js';
import { silentLogger } from '../../../src/log.js';
import { LeaseLostError, PgDb } from '../../../src/store/pg/db.js';
import { PgLeaseRepository } from '../../../src/store/pg/leases.js';
import { queriesOf } from '../../support/pg-queries.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../../support/postgres.js';

/**
 * docs/store.md, Round trips: fenced single-statement writes queued at the same moment by
 * different sessions go as one transaction; one that fails fails alone, the others commit.
 */
const missing = postgresMissing();

describe('group commit of the PostgreSQL write connection', { skip: missing, timeout: 120_000 }, () => {
  let server: PostgresServer;
  let db: PgDb;
  let leaseDb: PgDb;
  let repo: PgLeaseRepository;
  let n = 0;
  const sid = () => `00000000-0000-4000-9000-${String(++n).padStart(12, '0')}`;
  const lost: string[] = [];
  let node: LeaseKeeper;

  before(async () => {
    server = await startPostgres();
    const url = await server.createDatabase();
    db = await PgDb.connect(url);
    leaseDb = await PgDb.connect(url, { readers: 0 });
    await db.script(`CREATE TABLE session_leases (session_id TEXT PRIMARY KEY, node_id TEXT NOT NULL, token BIGINT NOT NULL, expires_at BIGINT NOT NULL);
      CREATE TABLE t (k TEXT PRIMARY KEY)`);
    db.fenceWith(currentFence);
    repo = new PgLeaseRepository(leaseDb);
    node = new LeaseKeeper({ repo, nodeId: 'a', leaseMs: 60_000, log: silentLogger(), onLost: (id) => lost.push(id) });
  });
  after(async () => {
    await Promise.all([db?.close(), leaseDb?.close()]);
    await server?.stop();
  });

  const insert = (sessionId: string, key: string) => runFenced(node.fence(sessionId), () => db.run('INSERT INTO t (k) VALUES ($1)', [key]));
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
});
