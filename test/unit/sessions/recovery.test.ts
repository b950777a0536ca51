import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { sqliteRepositories } from '../../../src/main/repositories.js';
import { recoverInterrupted } from '../../../src/sessions/recovery.js';
import { openStore } from '../../../src/store/db.js';
import { recordEvents } from '../../../src/transcript/replay-events.js';
import { ManualClock } from '../../support/events.js';
import { closedSessionRow } from '../../support/history.js';
import { removeDir, tempDir } from '../../support/tmp.js';

const home = tempDir('berth-recovery-');
const store = openStore(home);
after(() => {
  store.close();
  removeDir(home);
});

test('a call the daemon stopped inside is settled in the transcript: uncertain when running, stored when finished, not run when never begun', async () => {
  const repos = sqliteRepositories(store.db);
  const sessionId = randomUUID();
  const promptId = randomUUID();
  await repos.sessions.insert({ ...closedSessionRow(sessionId, 'w1', 1_000), closedAt: null, closeReason: null });
  await repos.prompts.admit({ id: promptId, sessionId, content: [{ type: 'text', text: 'go' }], originatorClientId: null, queuedAt: 1_000 });
  await repos.prompts.started(promptId, 1_001);
  const call = (toolCallId: string) => ({ sessionId, recordId: randomUUID(), kind: 'tool_call', promptId, at: 1_002, data: { toolCallId, name: 'workspace_write', args: {} } });
  await repos.transcript.append([
    { sessionId, recordId: randomUUID(), kind: 'user_prompt', promptId, at: 1_001, data: { content: [{ type: 'text', text: 'go' }] } },
    call('done'),
    { sessionId, recordId: randomUUID(), kind: 'tool_result', promptId, at: 1_003, data: { toolCallId: 'done', status: 'completed', content: [], rawOutput: 'ok' } },
    call('running'),
    call('finished-unrecorded'),
    call('never-begun'),
  ]);
  const ns = `session:${sessionId}`;
  await repos.receipts.begin({ namespace: ns, callId: 'running', toolName: 'workspace_write', argsDigest: 'x', startedAt: 1_004 });
  await repos.receipts.begin({ namespace: ns, callId: 'finished-unrecorded', toolName: 'workspace_write', argsDigest: 'y', startedAt: 1_004 });
  await repos.receipts.complete(ns, 'finished-unrecorded', { ok: true, result: { value: 'wrote 3 bytes' } }, 1_005);
  // Killed after the receipt, before the call's own record was stored: known only by its receipt.
  await repos.receipts.begin({ namespace: ns, callId: 'receipt-only', toolName: 'workspace_exec', argsDigest: 'z', startedAt: 1_006 });
  await repos.receipts.begin({ namespace: ns, callId: 'receipt-only-done', toolName: 'workspace_write', argsDigest: 'w', startedAt: 1_006 });
  await repos.receipts.complete(ns, 'receipt-only-done', { ok: true, result: { value: 'wrote 1 byte' } }, 1_007);
  // An earlier turn's receipt is not this turn's to settle.
  await repos.receipts.begin({ namespace: ns, callId: 'earlier-turn', toolName: 'workspace_exec', argsDigest: 'e', startedAt: 999 });

  const report = await recoverInterrupted({ ...repos, clock: new ManualClock(2_000) });
  assert.equal(report.interruptedTurns, 1);
  assert.equal(report.settledCalls, 5, 'only the five calls of the turn without a result');

  const updates = (await repos.transcript.all(sessionId))
    .flatMap(recordEvents)
    .filter((e) => e.data.sessionUpdate === 'tool_call_update')
    .map((e) => [e.data.toolCallId, e.data.status, (e.data.rawOutput as { error?: { code?: string } } | undefined)?.error?.code ?? e.data.rawOutput]);
  assert.deepEqual(updates, [
    ['done', 'completed', 'ok'],
    ['running', 'failed', 'uncertain_effect'],
    ['finished-unrecorded', 'completed', 'wrote 3 bytes'],
    ['never-begun', 'failed', 'daemon_lost'],
    ['receipt-only', 'failed', 'uncertain_effect'],
    ['receipt-only-done', 'completed', 'wrote 1 byte'],
  ]);
  const calls = (await repos.transcript.all(sessionId)).filter((r) => r.kind === 'tool_call').map((r) => [r.data.toolCallId, r.data.name]);
  assert.deepEqual(calls.slice(-2), [['receipt-only', 'workspace_exec'], ['receipt-only-done', 'workspace_write']], 'a call known only by its receipt gets its call record, named by its tool');
  const last = (await repos.transcript.all(sessionId)).at(-1)!;
  assert.equal(last.kind, 'turn_end', 'the settlements come before the turn end');
  assert.equal((await repos.receipts.find(ns, 'running'))?.status, 'executing', 'the receipt stays executing: a retry of the id is still uncertain');
});
