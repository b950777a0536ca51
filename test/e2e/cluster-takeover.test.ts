import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { call, openStream, siblingHome, transcriptHolds, updateOf } from '../support/spawned-client.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../support/postgres.js';
import { startSpawnedStack, type SpawnedStack } from '../support/spawned-stack.js';
import { removeDir } from '../support/tmp.js';

/**
 * Cluster mode, a node dies (docs/cluster-leases.md): two `berth serve --node-id`
 * processes share one PostgreSQL. Node a runs a turn that has appended a line
 * to a file and now waits on a model that hangs; node b refuses the session
 * while a lives. a is SIGKILLed; b takes the session over once a's lease ran
 * out, settles the interrupted turn as a restart would, tells an old cursor to
 * resync, and the effect happened once (one line on disk, one receipt).
 */
const missing = postgresMissing();
const LEASE_MS = '1500';

let server: PostgresServer;
let url: string;
let spawned: SpawnedStack;
let secondHome: string;

before(async () => {
  if (missing) return;
  server = await startPostgres();
  url = await server.createDatabase();
  spawned = await startSpawnedStack();
  secondHome = siblingHome(spawned.home);
});
after(async () => {
  await spawned?.close();
  if (secondHome) removeDir(secondHome);
  await server?.stop();
});

test('a node SIGKILLed mid-turn: another node takes its session over, the old cursor resyncs, nothing recorded is lost and the effect ran once', { skip: missing, timeout: 120_000 }, async () => {
  const { model, workspace } = spawned;
  const a = await spawned.serve('--store', url, '--node-id', 'a', '--lease-ms', LEASE_MS);
  const b = await spawned.serve('--home', secondHome, '--store', url, '--node-id', 'b', '--lease-ms', LEASE_MS);
  model.enqueue(
    {
      kind: 'reply',
      text: 'Appending first.',
      toolCalls: [{ id: 'call_once', name: 'workspace_exec', arguments: { command: "printf 'ran\\n' >> effects.log" } }],
    },
    { kind: 'hang', text: ['Now checking the log'] },
  );
  const created = await call(a.url, 'POST', '/session', { sessionScope: 'thread', approvalMode: 'yolo' });
  assert.equal(created.status, 200);
  const { sessionId, clientId } = created.body;
  const stream = await openStream(a.url, sessionId, { 'last-event-id': '0' });
  const prompt = await call(a.url, 'POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'Append, then check' }] }, { 'x-qwen-client-id': clientId });
  assert.equal(prompt.status, 202);
  await stream.until((e) => updateOf(e).sessionUpdate === 'tool_call_update' && updateOf(e).status === 'completed');
  await stream.until((e) => updateOf(e).content?.text === 'Now checking the log');
  await transcriptHolds(a.url, sessionId, 'Now checking the log'); // the kill comes once storage holds it
  const lastSeen = Math.max(...stream.seen.map((e) => e.id ?? 0));
  const oldEpoch = stream.epoch;
  stream.close();

  // While a lives, b names it as the owner.
  const elsewhere = await call(b.url, 'GET', `/session/${sessionId}/status`);
  assert.equal(elsewhere.status, 503);
  assert.equal(elsewhere.body.code, 'session_on_other_node');
  assert.equal(elsewhere.body.nodeId, 'a');

  await a.kill(); // SIGKILL: no shutdown code runs, the lease is left to expire
  const killedAt = performance.now();
  let status = await call(b.url, 'GET', `/session/${sessionId}/status`);
  while (status.status === 503 && status.body.code === 'session_on_other_node') {
    await new Promise((r) => setTimeout(r, 100));
    status = await call(b.url, 'GET', `/session/${sessionId}/status`);
  }
  assert.equal(status.status, 200, JSON.stringify(status.body));
  process.stdout.write(`# taken over ${Math.round(performance.now() - killedAt)} ms after the kill (lease ${LEASE_MS} ms)\n`);

  const reconnect = await openStream(b.url, sessionId, { 'last-event-id': String(lastSeen), 'x-qwen-event-epoch': oldEpoch });
  assert.notEqual(reconnect.epoch, oldEpoch);
  const resync = await reconnect.until((e) => e.type === 'state_resync_required');
  assert.equal((resync.data as any).reason, 'epoch_reset');
  reconnect.close();

  const transcript = await call(b.url, 'GET', `/session/${sessionId}/transcript?limit=200`);
  const events: any[] = transcript.body.events;
  assert.ok(events.some((e) => e.data.content?.text === 'Now checking the log'), 'what a recorded before the kill is there');
  const interrupted = events.find((e) => e.type === 'turn_error' || e.data?.error?.code === 'daemon_lost');
  assert.ok(interrupted, `the interrupted turn is settled: ${events.map((e) => e.type).join(', ')}`);

  assert.equal(readFileSync(join(workspace, 'effects.log'), 'utf8'), 'ran\n', 'the effect ran once');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const receipts = await client.query('SELECT status FROM receipts WHERE call_id LIKE $1', ['%call_once%']);
    assert.equal(receipts.rowCount, 1);
    const lease = await client.query('SELECT node_id FROM session_leases WHERE session_id = $1', [sessionId]);
    assert.equal(lease.rows[0].node_id, 'b');
  } finally {
    await client.end();
  }

  // The session goes on at b: a new turn runs there.
  model.enqueue({ kind: 'reply', text: 'Checked.' });
  const next = await call(b.url, 'POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'Check again' }] });
  assert.equal(next.status, 202, JSON.stringify(next.body));
});
