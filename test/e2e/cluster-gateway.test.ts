import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { AUTH, clusterMissing, startClusterNodes, type ClusterNodes } from '../support/cluster-nodes.js';
import { channelPathFor, dialChannel, INTENTION, ownerDirs, scriptPlans, settledCalls, spawnOwner, until, WORKSPACE_ID, type OwnerProcess, type TempOwnerDirs, type TurnPlans } from '../support/gateway.js';
import { startNotesApp } from '../support/notes-app.js';
import { call, openStream, transcriptHolds, updateOf } from '../support/spawned-client.js';
import { PgDb } from '../../src/store/pg/db.js';
import { PgTokenRepository } from '../../src/store/pg/tokens.js';
import { TokenService } from '../../src/tokens/tokens.js';

/**
 * Gateway channels across nodes (docs/cluster-bus.md): A dials one node; sessions on
 * any node run their remote workspace's tools through it, the holder's hub counts every
 * node's calls against its in-flight limit, and when the holder dies calls wait and fail
 * `channel_unavailable` as on one daemon until A dials again, wherever it lands.
 */
const missing = clusterMissing();
const WAIT_MS = 2_000;
let cluster: ClusterNodes;
let token: string;
let appToken: string;
const plans: TurnPlans = new Map();

before(async () => {
  if (missing) return;
  cluster = await startClusterNodes(['n1', 'n2'], 1500, ['--remote-workspace', `${WORKSPACE_ID}=${INTENTION}`, '--channel-wait-ms', String(WAIT_MS), '--max-channels-per-token', '2']);
  scriptPlans(cluster.stack.model, plans);
  const db = await PgDb.connect(cluster.storeUrl);
  try {
    const tokens = new TokenService(new PgTokenRepository(db), null);
    token = (await tokens.createChannelToken(WORKSPACE_ID)).token;
    appToken = (await tokens.createAppToken('notes', 'write')).token;
  } finally {
    await db.close();
  }
});
after(async () => {
  await cluster?.close();
});

async function remoteSession(url: string): Promise<{ sessionId: string; clientId: string }> {
  const r = await call(url, 'POST', '/session', { cwd: WORKSPACE_ID, sessionScope: 'thread', approvalMode: 'yolo' }, AUTH);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

/** One prompt on the session's node, its stream read from the start until the turn ends; the settled tool calls. */
async function turn(url: string, session: { sessionId: string; clientId?: string }, prompt: string) {
  const stream = await openStream(url, session.sessionId, { ...AUTH, 'last-event-id': '0' });
  try {
    const r = await call(url, 'POST', `/session/${session.sessionId}/prompt`, { prompt: [{ type: 'text', text: prompt }] }, { ...AUTH, ...(session.clientId && { 'x-qwen-client-id': session.clientId }) });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const end = await stream.until((e) => (e.type === 'turn_complete' || e.type === 'turn_error') && (e.data as any)?.promptId === r.body.promptId);
    assert.equal(end.type, 'turn_complete');
    return settledCalls(stream.seen, r.body.promptId);
  } finally {
    stream.close();
  }
}

const counters = async (url: string) => (await call(url, 'GET', '/health?deep=1', undefined, AUTH)).body;
const fakeRead = (path: string, content: string) => ({ path, content, sha256: 'a'.repeat(64), size: content.length });

test('the channels of one token are counted across nodes: with two open on n1 and n2, a third is refused on either', { skip: missing, timeout: 60_000 }, async () => {
  const dial = (url: string) => dialChannel(url, channelPathFor(), { authorization: `Bearer ${token}` });
  const first = await dial(cluster.node('n1').url);
  const second = await dial(cluster.node('n2').url);
  assert.ok(first.ok && second.ok);
  for (const node of ['n1', 'n2']) {
    const third = await dial(cluster.node(node).url);
    assert.equal(third.ok, false, `a third channel on ${node}`);
    if (third.ok) return;
    assert.equal(third.status, 429);
    assert.equal(third.body.code, 'channel_limit_exceeded');
    assert.equal(third.body.scope, 'token');
  }
  if (!first.ok || !second.ok) return;
  await first.channel.close();
  // The slot comes back once n1 has dropped its row.
  const again = await until(async () => {
    const d = await dial(cluster.node('n2').url);
    return d.ok ? d : undefined;
  }, 50);
  await again.channel.close();
  await second.channel.close();
});

test('calls from sessions on two nodes share the holder\'s in-flight limit: four are sent, the fifth and sixth wait', { skip: missing, timeout: 120_000 }, async () => {
  const n1 = cluster.node('n1').url;
  const n2 = cluster.node('n2').url;
  const d = await dialChannel(n2, channelPathFor(), { authorization: `Bearer ${token}` });
  assert.ok(d.ok);
  if (!d.ok) return;
  const a = d.channel;
  const turns: Promise<unknown>[] = [];
  for (let i = 1; i <= 6; i++) {
    const prompt = `limit ${i}`;
    plans.set(prompt, (seen) => (seen.length === 0 ? [{ id: `limit-${i}`, name: 'workspace_read', arguments: { path: `f${i}.txt` } }] : null));
    // Odd sessions on n1 (relayed over the bus to n2), even ones on n2 itself.
    const url = i % 2 === 1 ? n1 : n2;
    turns.push(turn(url, await remoteSession(url), prompt));
    if (i === 4) await a.call(4);
  }
  const held = await until(async () => {
    const c = await counters(n2);
    return c.gatewayCallsWaiting === 2 ? c : undefined;
  });
  assert.equal(held.gatewayCallsInFlight, 4);
  assert.equal(a.calls.length, 4, 'no fifth call was sent while four were unanswered');
  assert.equal((await counters(n1)).gatewayCallsInFlight, 0, 'n1 holds no channel: its calls run on n2');
  a.answer(a.calls[0], fakeRead('x', 'one'));
  await a.call(5);
  assert.equal(a.calls.length, 5, 'one answer frees one slot');
  a.answer(a.calls[1], fakeRead('x', 'two'));
  await a.call(6);
  for (const c of a.calls.slice(2)) a.answer(c, fakeRead('x', 'rest'));
  const done = (await Promise.all(turns)) as Awaited<ReturnType<typeof turn>>[];
  for (const calls of done) {
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.status, 'completed');
  }
  await a.close();
  await until(async () => (await counters(n2)).gatewayChannels === 0);
});

test('an application connected to n2 is listed, called and batched by a session on n1, and shown disconnected there once it leaves', { skip: missing, timeout: 120_000 }, async () => {
  const n1 = cluster.node('n1').url;
  const app = await startNotesApp(cluster.node('n2').url, appToken);
  try {
    const path = `/workspace/${encodeURIComponent(cluster.stack.workspace)}/applications`;
    const listed = await until(async () => {
      const r = await call(n1, 'GET', path, undefined, AUTH);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.applications.find((a: any) => a.applicationId === 'notes');
    });
    assert.equal(listed.connected, true);
    const r = await call(n1, 'POST', '/session', { sessionScope: 'thread', approvalMode: 'yolo' }, AUTH);
    assert.equal(r.status, 200);
    plans.set('use the notes app', (seen) =>
      seen.length === 0
        ? [{ id: 'apps', name: 'workspace_tools', arguments: {} }]
        : seen.length === 1
          ? [{ id: 'add', name: 'workspace_tool', arguments: { name: 'notes.add', arguments: { text: 'from n1' } } }]
          : seen.length === 2
            ? [{ id: 'list', name: 'workspace_tool', arguments: { name: 'notes.list', arguments: {} } }]
            : seen.length === 3
              ? [{ id: 'batch', name: 'workspace_tool_batch', arguments: { calls: [{ name: 'notes.add', arguments: { text: 'batched' } }, { name: 'notes.list', arguments: {} }] } }]
              : null,
    );
    const calls = await turn(n1, r.body, 'use the notes app');
    assert.deepEqual(calls.map((c) => c.status), ['completed', 'completed', 'completed', 'completed'], JSON.stringify(calls));
    assert.equal(calls[3]!.rawOutput.success, true, JSON.stringify(calls[3]!.rawOutput));
    assert.equal(calls[3]!.rawOutput.completed, 2);
    assert.ok(calls[0]!.rawOutput.tools.some((t: any) => t.name === 'notes.add'));
    assert.equal(calls[1]!.rawOutput.result.count, 1);
    assert.deepEqual(calls[2]!.rawOutput.result.notes, [{ id: 1, text: 'from n1' }]);
    await app.stop();
    await until(async () => {
      const r = await call(n1, 'GET', path, undefined, AUTH);
      return r.body.applications.find((a: any) => a.applicationId === 'notes' && a.connected === false);
    });
  } finally {
    await app.stop();
  }
});

let dirs: TempOwnerDirs;
let owner: OwnerProcess;
let session: { sessionId: string; clientId: string };
const linesOf = () => readFileSync(join(dirs.project, 'effects.log'), 'utf8').split('\n').filter(Boolean);

test('A dials n2; a session on n1 reads and writes through it, and the effect happens once', { skip: missing, timeout: 120_000 }, async () => {
  dirs = ownerDirs({ 'notes.txt': 'hello from A\n' });
  owner = spawnOwner({ url: cluster.node('n2').url, token, project: dirs.project, home: dirs.home, args: ['--approve', 'critical'] });
  await owner.waitForLines(/channel ready/);
  session = await remoteSession(cluster.node('n1').url);
  plans.set('read then append', (seen) =>
    seen.length === 0
      ? [{ id: 'read-1', name: 'workspace_read', arguments: { path: 'notes.txt' } }]
      : seen.length === 1
        ? [{ id: 'append-1', name: 'workspace_exec', arguments: { command: 'echo ran >> effects.log', waitMs: 30_000 } }]
        : null,
  );
  const calls = await turn(cluster.node('n1').url, session, 'read then append');
  assert.deepEqual(calls.map((c) => [c.tool, c.status]), [['workspace_read', 'completed'], ['workspace_exec', 'completed']]);
  assert.equal(calls[0]!.rawOutput.content, 'hello from A\n');
  assert.deepEqual(linesOf(), ['ran']);
});

test('the holder SIGKILLed: calls fail channel_unavailable as on one daemon until A dials again, on another node', { skip: missing, timeout: 120_000 }, async () => {
  assert.ok(session, 'runs after the test above');
  await cluster.node('n2').kill();
  await owner.kill();
  const n1 = cluster.node('n1').url;
  plans.set('read while nobody holds it', (seen) => (seen.length === 0 ? [{ id: 'read-2', name: 'workspace_read', arguments: { path: 'notes.txt' } }] : null));
  const refused = await turn(n1, session, 'read while nobody holds it');
  assert.equal(refused.length, 1);
  assert.equal(refused[0]!.code, 'channel_unavailable');

  owner = spawnOwner({ url: n1, token, project: dirs.project, home: dirs.home, args: ['--approve', 'critical'] });
  await owner.waitForLines(/channel ready/);
  plans.set('append again', (seen) =>
    seen.length === 0
      ? [{ id: 'append-2', name: 'workspace_exec', arguments: { command: 'echo again >> effects.log', waitMs: 30_000 } }]
      : seen.length === 1
        ? [{ id: 'read-3', name: 'workspace_read', arguments: { path: 'notes.txt' } }]
        : null,
  );
  const again = await turn(n1, session, 'append again');
  assert.deepEqual(again.map((c) => [c.tool, c.status]), [['workspace_exec', 'completed'], ['workspace_read', 'completed']]);
  assert.deepEqual(linesOf(), ['ran', 'again'], 'each effect happened once, the refused read none');
});

test('a session moves to another node mid-turn: the effect it made through the channel ran once, its receipt says so, and the new owner goes on through the same channel', { skip: missing, timeout: 120_000 }, async () => {
  assert.ok(owner, 'runs after the tests above, with A on n1');
  const n2 = await cluster.start('n2');
  const n1 = cluster.node('n1').url;
  const moving = await remoteSession(n2.url);
  cluster.stack.model.enqueue(
    { kind: 'reply', text: 'Appending.', toolCalls: [{ id: 'switch-1', name: 'workspace_exec', arguments: { command: 'echo switched >> effects.log', waitMs: 30_000 } }] },
    { kind: 'hang', text: ['Checking the log'] },
  );
  const stream = await openStream(n2.url, moving.sessionId, { ...AUTH, 'last-event-id': '0' });
  const r = await call(n2.url, 'POST', `/session/${moving.sessionId}/prompt`, { prompt: [{ type: 'text', text: 'append, then hang' }] }, { ...AUTH, 'x-qwen-client-id': moving.clientId });
  assert.equal(r.status, 202);
  await stream.until((e) => updateOf(e).content?.text === 'Checking the log');
  await transcriptHolds(n2.url, moving.sessionId, 'Checking the log', AUTH);
  stream.close();
  await n2.kill();

  let status = await call(n1, 'GET', `/session/${moving.sessionId}/status`, undefined, AUTH);
  while (status.status === 503) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = await call(n1, 'GET', `/session/${moving.sessionId}/status`, undefined, AUTH);
  }
  assert.equal(status.status, 200, JSON.stringify(status.body));
  plans.set('read after the move', (seen) => (seen.length === 0 ? [{ id: 'read-4', name: 'workspace_read', arguments: { path: 'notes.txt' } }] : null));
  // The client id was the old node's; a client reaching the new owner prompts without it, as after a restart.
  const after = await turn(n1, { sessionId: moving.sessionId }, 'read after the move');
  assert.deepEqual(after.map((c) => [c.tool, c.status]), [['workspace_read', 'completed']]);
  assert.deepEqual(linesOf(), ['ran', 'again', 'switched'], 'the effect ran once, before the move');
  const db = await PgDb.connect(cluster.storeUrl);
  try {
    const receipts = await db.rows<{ status: string }>('SELECT status FROM receipts WHERE namespace = $1 AND call_id = $2', [`session:${moving.sessionId}`, 'switch-1']);
    assert.deepEqual(receipts.map((x) => x.status), ['completed']);
  } finally {
    await db.close();
  }
  await owner.kill();
  dirs.remove();
});
