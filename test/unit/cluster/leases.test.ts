import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LeaseKeeper } from '../../../src/cluster/leases.js';
import { silentLogger } from '../../../src/log.js';
import { LeaseLostError, PgDb, UnnamedWriteError } from '../../../src/store/pg/db.js';
import { PgLeaseRepository } from '../../../src/store/pg/leases.js';
import { openPgStore, type PgStore } from '../../../src/store/pg/store.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../../support/postgres.js';

/**
 * Session leases and fencing on a real PostgreSQL (docs/cluster-leases.md): two
 * connections stand for two nodes. Time is never waited for: a lease is made to
 * expire by taking it for a negative time, which the database's clock has passed.
 */
const missing = postgresMissing();
const EXPIRED = -1;

describe('session leases', { skip: missing, timeout: 120_000 }, () => {
  let server: PostgresServer;
  let store: PgStore;
  let dbA: PgDb;
  let dbB: PgDb;
  let a: PgLeaseRepository;
  let b: PgLeaseRepository;
  let n = 0;
  const sid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;

  /** The node whose fences the store's writes carry; `as` sets it. */
  let fencing: LeaseKeeper | undefined;
  /** The store as session `id` of `node` writes to it (the fence is looked up when the write is made). */
  const as = (node: LeaseKeeper, id: string): PgDb => {
    fencing = node;
    return store.db.for(id);
  };

  before(async () => {
    server = await startPostgres();
    const url = await server.createDatabase();
    store = await openPgStore(url);
    store.db.fenceWith((id) => fencing!.fence(id));
    [dbA, dbB] = await Promise.all([PgDb.connect(url), PgDb.connect(url)]);
    a = new PgLeaseRepository(dbA);
    b = new PgLeaseRepository(dbB);
  });
  after(async () => {
    await Promise.all([store?.close(), dbA?.close(), dbB?.close()]);
    await server?.stop();
  });

  const keeper = (repo: PgLeaseRepository, nodeId: string, lost: string[] = []) =>
    new LeaseKeeper({ repo, nodeId, leaseMs: 60_000, log: silentLogger(), onLost: (id) => lost.push(id) });

  test('of two nodes racing for free sessions, exactly one takes each', async () => {
    const ids = Array.from({ length: 20 }, sid);
    const results = await Promise.all(ids.map((id) => Promise.all([a.acquire(id, 'a', 60_000), b.acquire(id, 'b', 60_000)])));
    for (const [ta, tb] of results) assert.equal([ta, tb].filter((t) => t !== null).length, 1);
    for (const id of ids) {
      const row = await a.get(id);
      assert.ok(row?.valid);
      assert.equal(row.token, 1);
    }
  });

  test('a held lease is refused to another node, taken once it expired, with a larger token', async () => {
    const id = sid();
    assert.equal(await a.acquire(id, 'a', 60_000), 1);
    assert.equal(await b.acquire(id, 'b', 60_000), null);
    assert.equal(await a.acquire(id, 'a', EXPIRED), 2, 'the holder takes it again, on a new token');
    assert.equal(await b.acquire(id, 'b', 60_000), 3);
    assert.deepEqual(await a.get(id), { sessionId: id, nodeId: 'b', token: 3, valid: true });
  });

  test('a released lease is free at once and its token keeps growing', async () => {
    const id = sid();
    const token = await a.acquire(id, 'a', 60_000);
    await a.release(id, 'a', token!);
    assert.equal((await b.get(id))?.valid, false);
    assert.equal(await b.acquire(id, 'b', 60_000), token! + 1);
  });

  test('renewal keeps the leases a node still holds and reports the one another node took', async () => {
    const lost: string[] = [];
    const node = keeper(a, 'a', lost);
    const kept = sid();
    const taken = sid();
    await node.acquire(kept);
    await node.acquire(taken);
    await dbA.run('UPDATE session_leases SET expires_at = 0 WHERE session_id = $1', [taken]); // its time ran out
    assert.ok((await b.acquire(taken, 'b', 60_000)) !== null);
    await node.renew();
    assert.deepEqual(lost, [taken]);
    assert.ok(node.holds(kept));
    assert.equal(node.fence(taken).token(), undefined);
    assert.equal((await a.get(kept))?.valid, true);
  });

  test('a fenced write lands while the lease holds and is refused after a takeover, leaving nothing', async () => {
    const lost: string[] = [];
    const node = keeper(a, 'a', lost);
    const id = sid();
    await node.acquire(id);
    const write = (value: string) => as(node, id).run('INSERT INTO meta (key, value) VALUES ($1, $2)', [`k-${id}-${value}`, value]);
    assert.equal(await write('before'), 1);
    // Another node takes it once its time ran out (here: made to run out).
    await dbA.run('UPDATE session_leases SET expires_at = 0 WHERE session_id = $1', [id]);
    assert.ok((await b.acquire(id, 'b', 60_000)) !== null);
    await assert.rejects(write('after'), LeaseLostError);
    const rows = await store.db.rows<{ key: string }>('SELECT key FROM meta WHERE key LIKE $1', [`k-${id}-%`]);
    assert.deepEqual(rows.map((r) => r.key), [`k-${id}-before`]);
    assert.deepEqual(lost, [id], 'the refusal is reported as a lost lease');
    await assert.rejects(write('again'), LeaseLostError, 'known lost: refused without asking the database');
  });

  test('a fenced transaction, and a fenced write answering rows, are refused after a takeover, leaving nothing', async () => {
    const lost: string[] = [];
    const node = keeper(a, 'a', lost);
    const id = sid();
    await node.acquire(id);
    const pair = (value: string) =>
      as(node, id).transaction(async (q) => {
        await q.run('INSERT INTO meta (key, value) VALUES ($1, $2)', [`t-${id}-${value}-1`, value]);
        await q.run('INSERT INTO meta (key, value) VALUES ($1, $2)', [`t-${id}-${value}-2`, value]);
      });
    const returning = (value: string) =>
      as(node, id).rows<{ key: string }>('INSERT INTO meta (key, value) VALUES ($1, $2) RETURNING key', [`r-${id}-${value}`, value]);
    await pair('before');
    assert.deepEqual(await returning('before'), [{ key: `r-${id}-before` }]);
    await dbA.run('UPDATE session_leases SET expires_at = 0 WHERE session_id = $1', [id]);
    assert.ok((await b.acquire(id, 'b', 60_000)) !== null);
    await assert.rejects(pair('after'), LeaseLostError);
    const rows = await store.db.rows<{ key: string }>('SELECT key FROM meta WHERE key LIKE $1 ORDER BY key', [`t-${id}-%`]);
    assert.deepEqual(rows.map((r) => r.key), [`t-${id}-before-1`, `t-${id}-before-2`]);
    assert.deepEqual(lost, [id]);
    // A second node object that still believes in the old token: the database refuses its RETURNING write.
    const stale = keeper(a, 'a');
    await dbA.run('UPDATE session_leases SET node_id = $1, token = 1, expires_at = $2 WHERE session_id = $3', ['a', Date.now() + 60_000, id]);
    await stale.acquire(id);
    await dbA.run('UPDATE session_leases SET token = token + 1 WHERE session_id = $1', [id]);
    await assert.rejects(as(stale, id).rows('INSERT INTO meta (key, value) VALUES ($1, $2) RETURNING key', [`r-${id}-after`, 'x']), LeaseLostError);
    assert.deepEqual(await store.db.rows('SELECT key FROM meta WHERE key = $1', [`r-${id}-after`]), []);
    // The write connection is usable after the refusals (their transactions were rolled back).
    assert.equal(await store.db.run('INSERT INTO meta (key, value) VALUES ($1, $2)', [`free-after-${id}`, 'x']), 1);
  });

  test("a new session's lease is taken by its first fenced write, in the same transaction", async () => {
    const lost: string[] = [];
    const node = keeper(a, 'a', lost);
    const id = sid();
    node.reserve(id);
    assert.equal(node.holds(id), true, 'reserved: the session is this node\'s while it is being created');
    assert.equal(await a.get(id), undefined, 'no round trip of its own');
    const write = (value: string) => as(node, id).run('INSERT INTO meta (key, value) VALUES ($1, $2)', [`n-${id}-${value}`, value]);
    assert.equal(await write('first'), 1);
    const row = await a.get(id);
    assert.equal(row?.nodeId, 'a');
    assert.equal(row?.valid, true);
    assert.equal(node.fence(id).token(), row?.token, 'the token the write took is the one later writes carry');
    assert.equal(await write('second'), 1);
    // A transaction as the first write takes it too.
    const other = sid();
    node.reserve(other);
    await as(node, other).transaction((q) => q.run('INSERT INTO meta (key, value) VALUES ($1, $2)', [`n-${other}`, 'x']));
    assert.equal(node.fence(other).token(), (await a.get(other))?.token);
    assert.deepEqual(lost, []);
  });

  test("a new session's first write is refused whole, as an id conflict, when another node holds its lease", async () => {
    const lost: string[] = [];
    const node = keeper(a, 'a', lost);
    const id = sid();
    assert.ok((await b.acquire(id, 'b', 60_000)) !== null);
    node.reserve(id);
    const single = as(node, id).run('INSERT INTO meta (key, value) VALUES ($1, $2)', [`c-${id}`, 'x']);
    await assert.rejects(single, { code: 'session_id_conflict' });
    assert.deepEqual(await store.db.rows('SELECT key FROM meta WHERE key = $1', [`c-${id}`]), []);
    assert.equal(node.holds(id), false);
    assert.deepEqual(lost, [], 'never live here: nothing to report as lost');
    assert.equal((await a.get(id))?.nodeId, 'b');
    node.reserve(id);
    const unit = as(node, id).transaction((q) => q.run('INSERT INTO meta (key, value) VALUES ($1, $2)', [`c-${id}-t`, 'x']));
    await assert.rejects(unit, { code: 'session_id_conflict' });
    assert.deepEqual(await store.db.rows('SELECT key FROM meta WHERE key = $1', [`c-${id}-t`]), []);
    // A reserved lease given back before any write leaves no row behind.
    const unused = sid();
    node.reserve(unused);
    await node.release(unused);
    assert.equal(node.holds(unused), false);
    assert.equal(await a.get(unused), undefined);
  });

  test("a cluster node's write to a session's table that names no session is refused before it runs, in a unit too", async () => {
    const node = keeper(a, 'a');
    const id = sid();
    await node.acquire(id);
    const receipt = (callId: string) => [`session:${id}`, callId, 'write_file', 'd', 1];
    const INSERT = `INSERT INTO receipts (namespace, call_id, tool_name, args_digest, status, started_at) VALUES ($1, $2, $3, $4, 'executing', $5)`;
    await assert.rejects(store.db.run(INSERT, receipt('plain')), UnnamedWriteError);
    await assert.rejects(store.db.rows(`${INSERT} RETURNING call_id`, receipt('rows')), UnnamedWriteError);
    await assert.rejects(store.db.promised.run(INSERT, receipt('promised')), UnnamedWriteError);
    await assert.rejects(store.db.rowsAfter([{ sql: INSERT, params: receipt('after') }], 'SELECT 1', []), UnnamedWriteError);
    await assert.rejects(store.db.transaction((q) => q.run(INSERT, receipt('transaction'))), UnnamedWriteError);
    await assert.rejects(store.db.unit(async (q) => q.run(INSERT, receipt('unit'))), UnnamedWriteError);
    const stored = async () => (await store.db.rows<{ call_id: string }>('SELECT call_id FROM receipts WHERE namespace = $1 ORDER BY call_id', [`session:${id}`])).map((r) => r.call_id);
    assert.deepEqual(await stored(), [], 'none of them ran');
    // Named, a session's write is fenced by its lease and lands; the node's own write lands unfenced; reads need no name.
    assert.equal(await as(node, id).run(INSERT, receipt('session')), 1);
    assert.equal(await store.db.nodeWide.run(INSERT, receipt('node')), 1);
    assert.deepEqual(await store.db.unit((q) => q.rows<{ n: number }>('SELECT count(*)::int AS n FROM receipts WHERE namespace = $1', [`session:${id}`])), [{ n: 2 }]);
    assert.deepEqual(await stored(), ['node', 'session']);
  });

  test('a write outside any fence, and a read inside one, are not checked', async () => {
    const id = sid();
    assert.equal(await store.db.run('INSERT INTO meta (key, value) VALUES ($1, $2)', [`free-${id}`, 'x']), 1);
    const node = keeper(a, 'a');
    // No lease taken: a fenced read still answers, a fenced write is refused.
    const rows = await as(node, id).rows('SELECT value FROM meta WHERE key = $1', [`free-${id}`]);
    assert.equal(rows.length, 1);
    await assert.rejects(
      as(node, id).run('DELETE FROM meta WHERE key = $1', [`free-${id}`]),
      LeaseLostError,
    );
  });
});
