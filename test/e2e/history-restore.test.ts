import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestDaemon } from '../support/daemon.js';
import { runTurn, storeGeneratedSession } from '../support/history.js';
import { EventReader, eventually, newSession, submit } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';
import { sqliteDb } from '../support/daemon.js';

/**
 * POST /session/{id}/load and /resume over real HTTP (spec §5.3, §5.4): the
 * RestoredSession body, the replay snapshot numbered on a new bus, the model
 * context rebuilt from the transcript (asserted on what the scripted model
 * received), attach on a live session, the bounded window, and the errors.
 */
describe('load and resume', () => {
  let stack: Stack;
  let d: TestDaemon;

  before(async () => {
    stack = await startStack();
    d = stack.daemon;
  });
  after(async () => {
    await stack?.close();
  });

  let written = 0;
  /** A closed session whose one turn wrote a notes file through a tool call (yolo: no question asked). */
  async function sessionWithToolTurn(): Promise<{ sessionId: string; clientId: string; epoch: string; file: string }> {
    const file = `notes-${++written}.txt`;
    const { sessionId, clientId, body } = await newSession(d, { approvalMode: 'yolo' });
    stack.model.enqueue(
      {
        kind: 'reply',
        text: 'I will write the notes.',
        toolCalls: [{ id: 'call_notes', name: 'workspace_write', arguments: { path: file, content: 'remember the milk\n', expectedSha256: null } }],
      },
      { kind: 'reply', text: 'The notes are written.' },
    );
    const turn = await runTurn(d, sessionId, 'Please write my notes', clientId);
    assert.equal(turn.terminal.type, 'turn_complete');
    assert.equal(readFileSync(join(d.workspace, file), 'utf8'), 'remember the milk\n');
    assert.equal((await d.json('DELETE', `/session/${sessionId}`, undefined, { 'x-qwen-client-id': clientId })).status, 204);
    return { sessionId, clientId, epoch: body.eventEpoch, file };
  }

  test('loading a closed session numbers its compacted replay 1..N on a new epoch, and live ids continue at N+1', async () => {
    const { sessionId, clientId, epoch, file } = await sessionWithToolTurn();
    const res = await d.json('POST', `/session/${sessionId}/load`, {});
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const b = res.body;
    assert.equal(b.sessionId, sessionId);
    assert.equal(b.attached, false);
    assert.match(b.clientId, /^client_/);
    assert.notEqual(b.clientId, clientId);
    assert.notEqual(b.eventEpoch, epoch);
    assert.equal(b.workspaceCwd, d.workspace);
    assert.equal(typeof b.state.models, 'object');
    assert.equal(b.state.modes.currentModeId, 'yolo');
    assert.deepEqual(b.liveJournal, []);
    assert.equal(b.historyHasMore, false);
    assert.equal(b.hasActivePrompt, false);
    const ids = b.compactedReplay.map((e: any) => e.id);
    assert.deepEqual(ids, ids.map((_: unknown, i: number) => i + 1));
    assert.equal(b.lastEventId, ids.length);
    const kinds = b.compactedReplay.map((e: any) => (e.type === 'session_update' ? e.data.update.sessionUpdate : e.type));
    assert.deepEqual(kinds, [
      'approval_mode_changed',
      'user_message_chunk',
      'agent_message_chunk',
      'agent_message_chunk',
      'tool_call',
      'tool_call_update',
      'agent_message_chunk',
      'agent_message_chunk',
      'turn_complete',
    ]);
    const call = b.compactedReplay.find((e: any) => e.data.update?.sessionUpdate === 'tool_call');
    assert.equal(call.data.sessionId, sessionId);
    assert.equal(call.data.update.toolCallId, 'call_notes');
    assert.deepEqual(call.data.update.rawInput, { path: file, content: 'remember the milk\n', expectedSha256: null });
    assert.equal(b.compactedReplay.find((e: any) => e.data.update?.sessionUpdate === 'tool_call_update').data.update.status, 'completed');
    assert.equal(b.promptTerminals.length, 1);
    assert.equal(b.promptTerminals[0].terminal, 'completed');
    assert.equal(b.promptTerminals[0].stopReason, 'end_turn');

    // A cursor from before the snapshot cannot be replayed from a ring that never held it: the ring starts
    // at the loaded session's first live event, N+1 (spec §7.4 step 3; step 2 when nothing live was published yet).
    const early = await EventReader.open(d, sessionId, { lastEventId: 0 });
    const resync = await early.type('state_resync_required');
    assert.equal(resync.data.reason, 'ring_evicted');
    assert.equal(resync.data.earliestAvailableId, b.lastEventId + 1);
    early.close();

    // The client subscribes from the snapshot's last id: the loaded session's first live event is its
    // command list, as at creation (N+1), and the next turn's ids follow on.
    const stream = await EventReader.open(d, sessionId, { lastEventId: b.lastEventId, headers: { 'x-qwen-event-epoch': b.eventEpoch } });
    const commands = await stream.type('session_update', (e) => e.data.update.sessionUpdate === 'available_commands_update');
    assert.equal(commands.id, b.lastEventId + 1);
    await stream.type('replay_complete', (e) => e.data.replayedCount === 1);
    stack.model.enqueue({ kind: 'reply', text: 'Back again.' });
    const accepted = await submit(d, sessionId, 'Are you there?', {}, { 'x-qwen-client-id': b.clientId });
    assert.equal(accepted.body.lastEventId, b.lastEventId + 1);
    const echo = await stream.type('session_update', (e) => (e.id ?? 0) > (commands.id ?? 0));
    assert.equal(echo.id, b.lastEventId + 2);
    await stream.terminal(accepted.body.promptId);
    stream.close();
  });

  test('a resumed session sends the earlier conversation, tool call and result included, to the model on its next turn', async () => {
    const { sessionId, file } = await sessionWithToolTurn();
    const res = await d.json('POST', `/session/${sessionId}/resume`, {});
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.attached, false);
    assert.equal(res.body.lastEventId, 0);
    assert.equal(res.body.compactedReplay, undefined);
    assert.equal(res.body.liveJournal, undefined);
    const before = stack.model.completions().length;
    stack.model.enqueue({ kind: 'reply', text: 'You asked me to write notes.' });
    await runTurn(d, sessionId, 'What did I ask you before?', res.body.clientId);
    const sent = stack.model.completions().slice(before);
    assert.equal(sent.length, 1);
    const messages = sent[0]!.messages.map((m: any) => ({
      role: m.role,
      content: m.content,
      ...(m.tool_calls ? { calls: m.tool_calls.map((c: any) => [c.id, c.function.name, JSON.parse(c.function.arguments)]) } : {}),
      ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
    }));
    assert.equal(messages[0].role, 'system');
    assert.deepEqual(messages.slice(1, 3), [
      { role: 'user', content: 'Please write my notes' },
      {
        role: 'assistant',
        content: 'I will write the notes.',
        calls: [['call_notes', 'workspace_write', { path: file, content: 'remember the milk\n', expectedSha256: null }]],
      },
    ]);
    assert.equal(messages[3].role, 'tool');
    assert.equal(messages[3].tool_call_id, 'call_notes');
    assert.match(messages[3].content, /sha256/i);
    assert.doesNotMatch(messages[3].content, /"error"/);
    assert.deepEqual(messages.slice(4), [
      { role: 'assistant', content: 'The notes are written.' },
      { role: 'user', content: 'What did I ask you before?' },
    ]);
  });

  test('load and resume of a live session attach with a fresh registered client id', async () => {
    const { sessionId, clientId } = await newSession(d);
    stack.model.enqueue({ kind: 'reply', text: 'Hello there.' });
    await runTurn(d, sessionId, 'Say hello', clientId);
    const loaded = await d.json('POST', `/session/${sessionId}/load`, {}, { 'x-qwen-client-id': 'client_not-issued-here' });
    assert.equal(loaded.status, 200);
    assert.equal(loaded.body.attached, true);
    assert.match(loaded.body.clientId, /^client_/);
    assert.notEqual(loaded.body.clientId, clientId);
    assert.notEqual(loaded.body.clientId, 'client_not-issued-here');
    // Attached snapshot: the settled history from the transcript, id-less; the bus high-water mark as cursor.
    assert.ok(loaded.body.compactedReplay.every((e: any) => e.id === undefined));
    const texts = loaded.body.compactedReplay.map((e: any) => e.data.update?.content?.text).filter(Boolean);
    assert.deepEqual(texts, ['Say hello', 'Hello there.']);
    const status = await d.json('GET', `/session/${sessionId}/status`, undefined, { 'x-qwen-client-id': loaded.body.clientId });
    assert.equal(status.status, 200);
    assert.equal(status.body.clientCount, 2);
    assert.equal(loaded.body.lastEventId, (await submit(d, sessionId, 'next', {}, { 'x-qwen-client-id': loaded.body.clientId })).body.lastEventId);

    const resumed = await d.json('POST', `/session/${sessionId}/resume`, {});
    assert.equal(resumed.status, 200);
    assert.equal(resumed.body.attached, true);
    assert.notEqual(resumed.body.clientId, loaded.body.clientId);
    assert.equal(resumed.body.compactedReplay, undefined);
    const again = await d.json('POST', `/session/${sessionId}/resume`, {}, { 'x-qwen-client-id': resumed.body.clientId });
    assert.equal(again.body.clientId, resumed.body.clientId, 'a registered client id is reused');
  });

  test('a load during a running turn puts that turn in liveJournal and the settled ones in compactedReplay', async () => {
    const { sessionId, clientId } = await newSession(d);
    stack.model.enqueue({ kind: 'reply', text: 'Earlier answer.' });
    await runTurn(d, sessionId, 'Earlier prompt', clientId);
    const calls = stack.model.requests.length;
    stack.model.enqueue({ kind: 'hang', text: 'Working on it' });
    const accepted = await submit(d, sessionId, 'A long task', {}, { 'x-qwen-client-id': clientId });
    await stack.model.waitForRequests(calls + 1);
    const loaded = await d.json('POST', `/session/${sessionId}/load`, {});
    assert.equal(loaded.status, 200);
    assert.equal(loaded.body.hasActivePrompt, true);
    const textOf = (list: any[]) => list.map((e: any) => e.data.update?.content?.text).filter(Boolean);
    assert.deepEqual(textOf(loaded.body.compactedReplay), ['Earlier prompt', 'Earlier answer.']);
    assert.ok(textOf(loaded.body.liveJournal).includes('A long task'));
    assert.ok(loaded.body.liveJournal.every((e: any) => e.promptId === accepted.body.promptId));
    assert.equal((await d.json('POST', `/session/${sessionId}/cancel`, {}, { 'x-qwen-client-id': clientId })).status, 204);
    await eventually(
      () => d.json('GET', `/session/${sessionId}/status`),
      (r) => r.body.hasActivePrompt === false,
    );
  });

  test('historyPageSize bounds the window: an id-less history_truncated marker first, its anchor pages the rest', async () => {
    const sessionId = await storeGeneratedSession(d, 20); // 120 records
    const res = await d.json('POST', `/session/${sessionId}/load`, { historyPageSize: 12, liveReplayMode: 'summary', compactedReplayMode: 'full' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [marker, ...rest] = res.body.compactedReplay;
    assert.equal(marker.type, 'history_truncated');
    assert.equal(marker.id, undefined);
    assert.equal(marker.data.reason, 'replay_window_exceeded');
    assert.equal(marker.data.fullTranscriptAvailable, true);
    assert.equal(marker.data.truncatedTurns, 18);
    assert.equal(marker.data.retainedEvents, rest.length);
    assert.ok(marker.data.truncatedEvents > 100);
    assert.equal(res.body.historyHasMore, true);
    assert.equal(res.body.historyAnchorRecordId, marker.data.recordId);
    assert.deepEqual(rest.map((e: any) => e.id), rest.map((_: unknown, i: number) => i + 1));
    assert.equal(res.body.lastEventId, rest.length);
    assert.equal(rest[0].data.update.content.text, 'generated prompt 18');
    const older = await d.json('GET', `/session/${sessionId}/transcript?beforeRecordId=${res.body.historyAnchorRecordId}&limit=6`);
    assert.equal(older.status, 200);
    assert.equal(older.body.events[0].data.content.text, 'generated prompt 17');
  });

  test('a damaged transcript record does not stop a load: the answer is partial, with a replayError', async () => {
    const sessionId = await storeGeneratedSession(d, 2);
    sqliteDb(d.daemon).prepare("UPDATE transcript SET data = '{not json' WHERE session_id = ? AND seq = 3").run(sessionId);
    const res = await d.json('POST', `/session/${sessionId}/load`, {});
    assert.equal(res.status, 200);
    assert.equal(res.body.partial, true);
    assert.match(res.body.replayError, /1 transcript record/);
    assert.ok(res.body.compactedReplay.some((e: any) => e.data.update?.content?.text === 'generated prompt 1'));
    const page = await d.json('GET', `/session/${sessionId}/transcript`);
    assert.equal(page.body.partial, true);
  });

  test('load with an approvalMode restores the session in that mode and says so on the stream', async () => {
    const sessionId = await storeGeneratedSession(d, 1);
    const res = await d.json('POST', `/session/${sessionId}/load`, { approvalMode: 'plan' });
    assert.equal(res.status, 200);
    assert.equal(res.body.state.modes.currentModeId, 'plan');
    const stream = await EventReader.open(d, sessionId, { lastEventId: res.body.lastEventId });
    const changed = await stream.type('approval_mode_changed');
    assert.equal(changed.id, res.body.lastEventId + 1);
    assert.deepEqual({ ...changed.data }, { sessionId, previous: 'default', next: 'plan', persisted: true });
    stream.close();
  });

  test('the model chosen before a close is the model after a load', async () => {
    const { sessionId, clientId } = await newSession(d);
    const switched = await d.json('POST', `/session/${sessionId}/model`, { modelId: 'scripted/scripted-model-2' }, { 'x-qwen-client-id': clientId });
    assert.equal(switched.status, 200);
    await d.json('DELETE', `/session/${sessionId}`);
    const res = await d.json('POST', `/session/${sessionId}/load`, {});
    assert.equal(res.body.state.models.currentModelId, 'scripted/scripted-model-2');
    const before = stack.model.completions().length;
    await runTurn(d, sessionId, 'which model?', res.body.clientId);
    assert.equal(stack.model.completions()[before]!.model, 'scripted-model-2');
  });

  test('unknown and malformed ids are 404; bad restore bodies are 400 with their codes', async () => {
    for (const action of ['load', 'resume']) {
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const res = await d.json('POST', `/session/${id}/${action}`, {});
        assert.equal(res.status, 404, `${action} ${id}`);
        assert.equal(res.body.code, 'session_not_found');
      }
    }
    const sessionId = await storeGeneratedSession(d, 1);
    const cases: [string, unknown, string][] = [
      ['load', { historyPageSize: 0 }, 'invalid_transcript_limit'],
      ['load', { historyPageSize: 501 }, 'invalid_transcript_limit'],
      ['load', { historyPageSize: 'ten' }, 'invalid_transcript_limit'],
      ['load', { liveReplayMode: 'everything' }, 'invalid_live_replay_mode'],
      ['load', { compactedReplayMode: 'everything' }, 'invalid_compacted_replay_mode'],
      ['load', { surprise: true }, 'invalid_request'],
      ['load', { approvalMode: 'reckless' }, 'invalid_approval_mode'],
      ['load', { cwd: '/definitely/not/a/workspace' }, 'workspace_mismatch'],
      ['resume', { liveReplayMode: 'everything' }, 'invalid_live_replay_mode'],
      ['resume', { surprise: true }, 'invalid_request'],
      ['load', [], 'invalid_request'],
    ];
    for (const [action, body, code] of cases) {
      const res = await d.json('POST', `/session/${sessionId}/${action}`, body);
      assert.equal(res.status, 400, `${action} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, code, `${action} ${JSON.stringify(body)}`);
    }
    const badClient = await d.json('POST', `/session/${sessionId}/load`, {}, { 'x-qwen-client-id': 'bad id!' });
    assert.equal(badClient.status, 400);
    assert.equal(badClient.body.code, 'invalid_client_id');
    // qwen ignores historyPageSize on resume (spec §5.4).
    const resumed = await d.json('POST', `/session/${sessionId}/resume`, { historyPageSize: 5, cwd: d.workspace });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
  });

  test('capabilities advertise load, resume, transcript pagination, turn navigation and export', async () => {
    const caps = await d.json('GET', '/capabilities');
    for (const tag of [
      'session_load',
      'session_resume',
      'unstable_session_resume',
      'session_transcript',
      'session_transcript_pagination',
      'session_turn_navigation',
      'session_export',
    ]) {
      assert.ok(caps.body.features.includes(tag), tag);
    }
  });
});
