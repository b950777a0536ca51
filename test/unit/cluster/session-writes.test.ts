import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LeaseKeeper } from '../../../src/cluster/leases.js';
import { silentLogger } from '../../../src/log.js';
import { postgresRepositories } from '../../../src/main/pg-repositories.js';
import type { Repositories } from '../../../src/main/repositories.js';
import { LeaseLostError, PgDb } from '../../../src/store/pg/db.js';
import { PgLeaseRepository } from '../../../src/store/pg/leases.js';
import { openPgStore, type PgStore } from '../../../src/store/pg/store.js';
import { statementsOf } from '../../support/pg-queries.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../../support/postgres.js';
import { NOW, session } from '../store/cases/fixtures.js';

/**
 * docs/cluster-leases.md, Fencing: on a cluster node each repository names whom it writes for.
 * A session's own repositories, its receipts, and the inbox writes of a tab open here carry the
 * session's lease token, so a node that lost the session writes none of them; what the node
 * writes for itself (an inbox taken for a session not open here) needs no lease.
 */
const missing = postgresMissing();

describe("a cluster node's repositories write for the session they name", { skip: missing, timeout: 120_000 }, () => {
  let server: PostgresServer;
  let store: PgStore;
  let other: PgDb;
  let node: LeaseKeeper;
  let repos: Repositories;
  let n = 0;
  const sid = () => `00000000-0000-4000-a000-${String(++n).padStart(12, '0')}`;

  before(async () => {
    server = await startPostgres();
    const url = await server.createDatabase();
    store = await openPgStore(url);
    other = await PgDb.connect(url, { readers: 0 });
    node = new LeaseKeeper({ repo: new PgLeaseRepository(other), nodeId: 'a', leaseMs: 60_000, log: silentLogger(), onLost: () => undefined });
    store.db.fenceWith((id) => node.fence(id));
    repos = postgresRepositories(store.db, 'a');
  });
  after(async () => {
    await Promise.all([store?.close(), other?.close()]);
    await server?.stop();
  });

  /** A session stored and held by this node, then taken by node `b` behind its back. */
  const takenOver = async (): Promise<string> => {
    const id = sid();
    await node.acquire(id);
    await repos.ofSession!(id).sessions.insert(session(id));
    await other.run(`UPDATE session_leases SET node_id = 'b', token = token + 1 WHERE session_id = $1`, [id]);
    return id;
  };

  test("a session's own repositories, and its receipts, are refused once another node took it", async () => {
    const id = await takenOver();
    const own = repos.ofSession!(id);
    await assert.rejects(own.prompts.admit({ id: `p-${id}`, sessionId: id, content: [], originatorClientId: null, queuedAt: 1 }), LeaseLostError);
    await assert.rejects(own.sessions.update(id, { displayName: 'late' }, 2), LeaseLostError);
    await assert.rejects(repos.receipts.begin({ namespace: `session:${id}`, callId: 'c1', toolName: 't', argsDigest: 'd', startedAt: 1 }), LeaseLostError);
    assert.equal((await repos.sessions.get(id))?.displayName, null);
    assert.equal(await repos.receipts.find(`session:${id}`, 'c1'), undefined);
    // A gateway owner's receipt, for a session of another daemon, is the node's own.
    assert.equal(await repos.receipts.begin({ namespace: `gateway:w1:${id}`, callId: 'c1', toolName: 't', argsDigest: 'd', startedAt: 1 }), true);
  });

  test("a new session's row takes its lease and its tab number in one statement, or nothing when another node holds the lease", async () => {
    const id = sid();
    node.reserve(id);
    const { sent } = await statementsOf(() => repos.ofSession!(id).sessions.insert(session(id, { workspaceId: 'wl' })));
    assert.equal(sent.length, 1, 'one round trip');
    assert.equal(sent[0]!.length, 1, 'one statement: the lease, the row and the tab');
    const lease = await new PgLeaseRepository(other).get(id);
    assert.equal(lease?.nodeId, 'a');
    assert.equal(node.fence(id).token(), lease?.token, 'the token the row took is the one later writes carry');
    assert.equal(await repos.moduleTabs.assign(id, 'wl', NOW), 1, 'given with the row');
    await repos.ofSession!(id).sessions.update(id, { displayName: 'later' }, 2);

    const refused = sid();
    await new PgLeaseRepository(other).acquire(refused, 'b', 60_000);
    node.reserve(refused);
    await assert.rejects(repos.ofSession!(refused).sessions.insert(session(refused, { workspaceId: 'wl' })), { code: 'session_id_conflict' });
    assert.equal(await repos.sessions.get(refused), undefined);
    assert.equal(node.holds(refused), false);
    assert.equal((await new PgLeaseRepository(other).get(refused))?.nodeId, 'b');
    const next = sid();
    await node.acquire(next);
    await repos.ofSession!(next).sessions.insert(session(next, { workspaceId: 'wl' }));
    assert.equal(await repos.moduleTabs.assign(next, 'wl', NOW), 2, 'the refused row took no number');
  });

  test('a tab open here sends and takes as its session; an inbox taken for a session not open here is the node’s write', async () => {
    const sender = await takenOver();
    const receiver = sid();
    await node.acquire(receiver);
    await repos.ofSession!(receiver).sessions.insert(session(receiver));
    const message = (id: string, from: string, to: string) => ({
      id, toSessionId: to, fromSessionId: from, fromTab: 1, fromLabel: 'tab 1', kind: 'info' as const, text: 'hi', hop: 1, sentAt: 1,
    });
    await assert.rejects(repos.moduleInbox.add(message('m1', sender, receiver)), LeaseLostError);
    await repos.moduleInbox.add(message('m2', receiver, sender));
    await assert.rejects(repos.moduleInbox.takeAll(sender, true), LeaseLostError, 'taken as the session, which this node lost');
    assert.deepEqual((await repos.moduleInbox.takeAll(sender, false)).map((m) => m.id), ['m2']);
    assert.equal(await repos.moduleInbox.count(receiver), 0);
  });
});
