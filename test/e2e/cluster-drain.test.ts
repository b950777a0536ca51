import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { call, openStream } from '../support/spawned-client.js';
import { runTurn } from '../support/history.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../support/postgres.js';
import { newSession } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * Cluster mode, the orderly paths (docs/cluster-leases.md): four nodes in this
 * process on one PostgreSQL and one workspace, with a lease long enough (a
 * minute) that only a release can explain another node serving a session at
 * once. A drained node hands its sessions over without closing their rows;
 * two nodes taking one free session at once end with one owner; `/health`
 * reports the node's readiness.
 */
const missing = postgresMissing();
const LEASE_MS = 60_000;

describe('nodes sharing one PostgreSQL', { skip: missing, timeout: 180_000 }, () => {
  let server: PostgresServer;
  let url: string;
  let workspace: string;
  const nodes = new Map<string, Stack>();
  let db: pg.Client;

  before(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    workspace = tempDir('berth-ws-cluster-');
    for (const nodeId of ['a', 'b', 'c', 'd']) {
      nodes.set(nodeId, await startStack({ workspace, keep: true, config: { store: { engine: 'postgres', url }, cluster: { nodeId, leaseMs: LEASE_MS } } }));
    }
    db = new pg.Client({ connectionString: url });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    for (const node of nodes.values()) await node.close().catch(() => undefined);
    await server?.stop();
    removeDir(workspace);
  });

  const node = (id: string) => nodes.get(id)!.daemon;
  let sessionId: string;

  test('a drained node hands its session over: its stream is ended, its row stays open, and the next node serves it at once', async () => {
    const a = nodes.get('a')!;
    const opened = await newSession(a.daemon, { approvalMode: 'yolo' });
    sessionId = opened.sessionId;
    a.model.enqueue({ kind: 'reply', text: 'Before the drain.' });
    const turn = await runTurn(a.daemon, sessionId, 'Say something', opened.clientId);
    assert.equal(turn.terminal.type, 'turn_complete');
    const refused = await call(node('b').url, 'GET', `/session/${sessionId}/status`);
    assert.equal(refused.status, 503);
    assert.equal(refused.body.code, 'session_on_other_node');

    const stream = await openStream(a.daemon.url, sessionId, { 'last-event-id': String(turn.terminal.id) });
    await a.daemon.daemon.close(); // what SIGTERM runs
    await stream.ended();
    const closed = stream.seen.find((e) => e.type === 'session_closed');
    assert.equal((closed?.data as any)?.reason, 'handed_over');
    const row = await db.query('SELECT closed_at, close_reason FROM sessions WHERE id = $1', [sessionId]);
    assert.deepEqual(row.rows[0], { closed_at: null, close_reason: null }, 'another node serves it: it is not closed');

    const served = await call(node('b').url, 'GET', `/session/${sessionId}/status`);
    assert.equal(served.status, 200, 'the lease was given back: no wait for it to expire');
    const transcript = await call(node('b').url, 'GET', `/session/${sessionId}/transcript?limit=100`);
    assert.ok(transcript.body.events.some((e: any) => e.data.content?.text === 'Before the drain.'));
  });

  test('two nodes taking one free session at once: exactly one owns it and the other names that one', async () => {
    await node('b').daemon.close(); // the session is free again
    const [c, d] = await Promise.all([call(node('c').url, 'GET', `/session/${sessionId}/status`), call(node('d').url, 'GET', `/session/${sessionId}/status`)]);
    const statuses = [c.status, d.status].sort();
    assert.deepEqual(statuses, [200, 503]);
    const winner = c.status === 200 ? 'c' : 'd';
    const loser = c.status === 200 ? d : c;
    assert.equal(loser.body.code, 'session_on_other_node');
    assert.equal(loser.body.nodeId, winner);
    const lease = await db.query('SELECT node_id FROM session_leases WHERE session_id = $1', [sessionId]);
    assert.equal(lease.rows[0].node_id, winner);
  });

  test('a node whose lease another node took stops the session at once, and its write does not land', async () => {
    const owner = (await db.query('SELECT node_id FROM session_leases WHERE session_id = $1', [sessionId])).rows[0].node_id as string;
    const count = async (table: string) => Number((await db.query(`SELECT count(*) AS n FROM ${table} WHERE session_id = $1`, [sessionId])).rows[0].n);
    const [prompts, records] = [await count('prompts'), await count('transcript')];
    // Another node (x) takes the lease while the owner still thinks it holds it: as after a pause longer than the lease.
    await db.query(`UPDATE session_leases SET node_id = 'x', token = token + 1, expires_at = expires_at + 600000 WHERE session_id = $1`, [sessionId]);
    const refused = await call(node(owner).url, 'POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'Too late' }] });
    assert.equal(refused.status, 503);
    assert.equal(refused.body.code, 'session_on_other_node');
    assert.deepEqual([await count('prompts'), await count('transcript')], [prompts, records], 'nothing of the fenced-out node landed');
    const after = await call(node(owner).url, 'GET', `/session/${sessionId}/status`);
    assert.equal(after.status, 503, 'the session is no longer live there');
    assert.equal(after.body.nodeId, 'x');
  });

  test('/health reports the node ready with its store reachable', async () => {
    const health = await call(node('c').url, 'GET', '/health');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'ok');
    assert.equal(health.body.readiness.store.ready, true);
    assert.equal(health.body.readiness.node.nodeId, 'c');
  });
});
