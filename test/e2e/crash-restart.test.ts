import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import type { ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { runTurn } from '../support/history.js';
import { newSession } from '../support/session-client.js';
import { call, openStream, transcriptHolds, updateOf } from '../support/spawned-client.js';
import { startSpawnedStack, type SpawnedStack } from '../support/spawned-stack.js';
import { startStack } from '../support/stack.js';
import { removeDir } from '../support/tmp.js';

/**
 * Issue 4 acceptance, crash and restart: `berth serve` (a real process) is
 * killed with SIGKILL in the middle of a turn that has already written a file
 * and is waiting on a model that hangs, with a second prompt queued behind it.
 * The daemon started again on the same home lists and loads the session, its
 * transcript holds everything up to the kill, the interrupted turn and the
 * prompt that never ran are marked `daemon_lost`, the write happened once (one
 * completed receipt, the file written once), and a client reconnecting with
 * its old cursor and epoch is told to resync. A clean shutdown is the same
 * story without the interruption: its sessions reopen on first use.
 */

let spawned: SpawnedStack;
let model: ScriptedModel;
let home: string;
let workspace: string;

before(async () => {
  spawned = await startSpawnedStack();
  ({ model, home, workspace } = spawned);
});
after(() => spawned.close());

const serve = () => spawned.serve();

test('after SIGKILL mid-turn the restarted daemon lists and loads the session, marks what was interrupted, and tells old cursors to resync', { timeout: 90_000 }, async () => {
  model.enqueue(
    {
      kind: 'reply',
      text: 'Writing the file first.',
      toolCalls: [{ id: 'call_crash', name: 'workspace_write', arguments: { path: 'once.txt', content: 'written once\n', expectedSha256: null } }],
    },
    { kind: 'hang', text: ['Now checking the file'] },
  );
  const first = await serve();
  const created = await call(first.url, 'POST', '/session', { sessionScope: 'thread', approvalMode: 'yolo' });
  const { sessionId, clientId } = created.body;
  const stream = await openStream(first.url, sessionId, { 'last-event-id': '0' });
  const running = await call(first.url, 'POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'Write once.txt, then check it' }] }, { 'x-qwen-client-id': clientId });
  const queued = await call(first.url, 'POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'Then tell me a joke' }] }, { 'x-qwen-client-id': clientId });
  assert.equal(running.status, 202);
  assert.equal(queued.status, 202);
  await stream.until((e) => e.type === 'pending_prompt_added');
  await stream.until((e) => updateOf(e).sessionUpdate === 'tool_call_update' && updateOf(e).status === 'completed');
  await stream.until((e) => updateOf(e).content?.text === 'Now checking the file');
  assert.equal(readFileSync(join(workspace, 'once.txt'), 'utf8'), 'written once\n');
  await transcriptHolds(first.url, sessionId, 'Now checking the file'); // the kill comes once storage holds it
  const lastSeen = Math.max(...stream.seen.map((e) => e.id ?? 0));
  const oldEpoch = stream.epoch;
  stream.close();

  await first.kill(); // SIGKILL: no shutdown code runs
  const second = await serve();

  const listed = await call(second.url, 'GET', '/sessions');
  const entry = listed.body.sessions.find((s: any) => s.sessionId === sessionId);
  assert.equal(entry.state, 'persisted');
  assert.equal(entry.closeReason, 'daemon_lost');

  // A client that kept its cursor reconnects: the session comes back, on a new epoch, and says so.
  const reconnect = await openStream(second.url, sessionId, { 'last-event-id': String(lastSeen), 'x-qwen-event-epoch': oldEpoch });
  assert.notEqual(reconnect.epoch, oldEpoch);
  const resync = await reconnect.until((e) => e.type === 'state_resync_required');
  assert.deepEqual(resync.data, { reason: 'epoch_reset', detail: 'epoch_mismatch', lastDeliveredId: lastSeen, earliestAvailableId: 1 });
  await reconnect.until((e) => e.type === 'replay_complete');
  reconnect.close();

  // …and rebuilds through load.
  const loaded = await call(second.url, 'POST', `/session/${sessionId}/load`, {});
  assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
  const terminals = Object.fromEntries(loaded.body.promptTerminals.map((t: any) => [t.promptId, t]));
  assert.equal(terminals[running.body.promptId].terminal, 'interrupted');
  assert.equal(terminals[running.body.promptId].code, 'daemon_lost');
  assert.equal(terminals[queued.body.promptId].terminal, 'interrupted');
  assert.equal(terminals[queued.body.promptId].code, 'daemon_lost');
  const replayed = loaded.body.compactedReplay.map((e: any) => (e.type === 'session_update' ? e.data.update.sessionUpdate : e.type));
  assert.ok(replayed.includes('tool_call') && replayed.includes('tool_call_update'));

  // The transcript holds everything up to the kill, then the two daemon_lost ends.
  const all = await call(second.url, 'GET', `/session/${sessionId}/transcript?limit=500`);
  const events = all.body.events;
  const texts = events.map((e: any) => e.data.content?.text).filter(Boolean);
  assert.deepEqual(texts, ['Write once.txt, then check it', 'Writing the file first.', 'Now checking the file']);
  const result = events.find((e: any) => e.data.sessionUpdate === 'tool_call_update');
  assert.equal(result.data.toolCallId, 'call_crash');
  assert.equal(result.data.status, 'completed');
  const ends = events.filter((e: any) => e.type === 'turn_error');
  assert.equal(ends.length, 2);
  assert.equal(ends[0].promptId, running.body.promptId);
  assert.equal(ends[0].data.code, 'daemon_lost');
  assert.equal(ends[0].data.interrupted, true);
  assert.equal(ends[1].promptId, queued.body.promptId);
  assert.equal(ends[1].data.started, false);
  assert.equal(events.filter((e: any) => e.type === 'turn_complete').length, 0);

  // The write happened once: one completed receipt for its call id, the file as first written.
  const db = new Database(join(home, 'berth.db'), { readonly: true });
  try {
    const receipts = db.prepare("SELECT status FROM receipts WHERE call_id = 'call_crash'").all() as { status: string }[];
    assert.deepEqual(receipts, [{ status: 'completed' }]);
  } finally {
    db.close();
  }
  assert.equal(readFileSync(join(workspace, 'once.txt'), 'utf8'), 'written once\n');

  // The conversation goes on from there: the model is shown the write and its result, and does not write again.
  const before = model.completions().length;
  model.enqueue({ kind: 'reply', text: 'The file is there; nothing to redo.' });
  const next = await call(second.url, 'POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'Where were we?' }] }, { 'x-qwen-client-id': loaded.body.clientId });
  assert.equal(next.status, 202);
  await model.waitForRequests(model.requests.length + 1);
  const sent = model.completions()[before]!.messages;
  assert.ok(sent.some((m: any) => m.role === 'tool' && m.tool_call_id === 'call_crash' && /sha256/.test(m.content)));
  assert.equal(sent.at(-1).content, 'Where were we?');
  assert.equal(readFileSync(join(workspace, 'once.txt'), 'utf8'), 'written once\n');
});

test('after a clean shutdown the sessions it closed come back on first use; sessions closed on purpose stay closed', { timeout: 60_000 }, async () => {
  const firstRun = await startStack({ keep: true });
  const kept = firstRun.daemon;
  const open = await newSession(kept);
  firstRun.model.enqueue({ kind: 'reply', text: 'Before the restart.' });
  await runTurn(kept, open.sessionId, 'Say something', open.clientId);
  const deleted = await newSession(kept);
  await kept.json('DELETE', `/session/${deleted.sessionId}`);
  await firstRun.close(); // SIGTERM-like: every live session closes with daemon_shutdown

  const secondRun = await startStack({ home: kept.home, workspace: kept.workspace });
  try {
    const d = secondRun.daemon;
    const back = await d.json('GET', `/session/${open.sessionId}/status`);
    assert.equal(back.status, 200);
    assert.equal(back.body.clientCount, 0, 'client ids die with the process; clients attach again through load or resume');
    assert.equal((await d.json('GET', `/session/${deleted.sessionId}/status`)).status, 404);
    const states = Object.fromEntries((await d.json('GET', '/sessions')).body.sessions.map((s: any) => [s.sessionId, s.state]));
    assert.deepEqual(states, { [open.sessionId]: 'live', [deleted.sessionId]: 'persisted' });
    const before = secondRun.model.completions().length;
    const resumed = await d.json('POST', `/session/${open.sessionId}/resume`, {});
    assert.equal(resumed.body.attached, true);
    await runTurn(d, open.sessionId, 'And now?', resumed.body.clientId);
    const sent = secondRun.model.completions()[before]!.messages.map((m: any) => m.content);
    assert.deepEqual(sent.slice(1), ['Say something', 'Before the restart.', 'And now?']);
  } finally {
    await secondRun.close();
    removeDir(kept.home);
    removeDir(kept.workspace);
  }
});
