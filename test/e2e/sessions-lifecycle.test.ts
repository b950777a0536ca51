import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validatorFor } from '../../src/http/contract.js';
import { chatRequestIndex, writeReply } from '../support/model-script.js';
import { stackPerSuite, type Stack } from '../support/stack.js';
import { EventReader, newSession, select, submit, type WireEvent } from '../support/session-client.js';
import type { TestDaemon } from '../support/daemon.js';

/** Close, heartbeat, metadata, model, status and context of a live session over raw HTTP (spec §5.2, §5.5-§5.9). */

describe('session lifecycle routes (spec §5)', () => {
  let s: Stack;
  let d: TestDaemon;
  stackPerSuite((stack) => {
    s = stack;
    d = stack.daemon;
  });

  it('closes with 204: running and queued prompts end in turn_error session_closed, session_closed ends the stream, then 404', async () => {
    const { sessionId, clientId } = await newSession(d);
    const as = { 'x-qwen-client-id': clientId };
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue({ kind: 'hang', text: 'thinking…' });
    const running = (await submit(d, sessionId, 'long job', {}, as)).body.promptId;
    const queued = (await submit(d, sessionId, 'next job', {}, as)).body.promptId;
    const index = await chatRequestIndex(s.model, 0);
    await events.type('pending_prompt_added', (e) => e.promptId === queued);

    const closed = await d.json('DELETE', `/session/${sessionId}`, undefined, as);
    assert.equal(closed.status, 204);
    assert.equal(closed.body, undefined, '204 has no body');

    const all = await events.rest();
    const types = all.map((e) => e.type);
    assert.equal(types.at(-1), 'session_closed', 'the stream ends right after session_closed');
    const errA = all.find((e) => e.type === 'turn_error' && e.data.promptId === running)!;
    const errB = all.find((e) => e.type === 'turn_error' && e.data.promptId === queued)!;
    assert.equal(errA.data.code, 'session_closed');
    assert.equal(errB.data.code, 'session_closed');
    assert.equal(all.filter((e) => e.type === 'turn_complete' || e.type === 'turn_error').length, 2, 'one terminal per prompt');
    const end = all.at(-1)!;
    assert.deepEqual(end.data, { sessionId, reason: 'client_close', closedBy: clientId });
    assert.equal(end.originatorClientId, clientId);
    assert.equal(typeof end.id, 'number');
    assert.equal((await s.model.waitForClientClose(index)).clientClosedEarly, true, 'the model stream was aborted');

    assert.equal((await d.json('DELETE', `/session/${sessionId}`)).status, 404);
    assert.equal((await d.json('GET', `/session/${sessionId}/status`)).status, 404);
    assert.equal((await d.json('POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'x' }] })).status, 404);
  });

  it('closing resolves a pending permission request as cancelled', async () => {
    const { sessionId } = await newSession(d);
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue(writeReply('never.txt', 'hi'));
    await submit(d, sessionId, 'write something');
    const request = await events.type('permission_request');
    assert.equal((await d.json('DELETE', `/session/${sessionId}`)).status, 204);
    const resolved = await events.type('permission_resolved');
    assert.equal(resolved.data.requestId, request.data.requestId);
    assert.deepEqual(resolved.data.outcome, { outcome: 'cancelled' });
    await events.rest();
  });

  it('answers a heartbeat with lastSeenAt, echoing the client id only when a registered one was sent', async () => {
    const heartbeat = validatorFor('Heartbeat');
    const { sessionId, clientId } = await newSession(d);
    const before = Date.now();
    const withId = await d.json('POST', `/session/${sessionId}/heartbeat`, {}, { 'x-qwen-client-id': clientId });
    assert.equal(withId.status, 200);
    assert.ok(heartbeat(withId.body), JSON.stringify(heartbeat.errors));
    assert.equal(withId.body.sessionId, sessionId);
    assert.equal(withId.body.clientId, clientId);
    assert.ok(withId.body.lastSeenAt >= before && withId.body.lastSeenAt <= Date.now());
    const anonymous = await d.json('POST', `/session/${sessionId}/heartbeat`);
    assert.equal(anonymous.status, 200);
    assert.ok(heartbeat(anonymous.body));
    assert.deepEqual(Object.keys(anonymous.body).sort(), ['lastSeenAt', 'sessionId']);
  });

  it('renames a session: 200 with the name, a session_metadata_updated event, and the name in status', async () => {
    const { sessionId, clientId } = await newSession(d);
    const events = await EventReader.open(d, sessionId);
    const res = await d.json('PATCH', `/session/${sessionId}/metadata`, { displayName: 'Fix the build' }, { 'x-qwen-client-id': clientId });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { sessionId, displayName: 'Fix the build' });
    const event = await events.type('session_metadata_updated');
    assert.deepEqual(event.data, { sessionId, displayName: 'Fix the build', titleSource: 'manual' });
    assert.equal(event.originatorClientId, clientId);
    assert.equal((await d.json('GET', `/session/${sessionId}/status`)).body.displayName, 'Fix the build');
    events.close();
  });

  it('cuts a display name to 256 UTF-16 units before checking it, so what lies past the cut does not matter', async () => {
    const { sessionId } = await newSession(d);
    const path = `/session/${sessionId}/metadata`;
    const long = await d.json('PATCH', path, { displayName: 'n'.repeat(300) });
    assert.equal(long.status, 200);
    assert.equal(long.body.displayName, 'n'.repeat(256));
    const controlAfterCut = await d.json('PATCH', path, { displayName: 'c'.repeat(256) + '\u0001tail' });
    assert.equal(controlAfterCut.status, 200, JSON.stringify(controlAfterCut.body));
    assert.equal(controlAfterCut.body.displayName, 'c'.repeat(256));
    // Not surrogate-aware (the contract says so): an emoji across the cut leaves its high half.
    const emoji = await d.json('PATCH', path, { displayName: 'e'.repeat(255) + '\u{1F600}' });
    assert.equal(emoji.status, 200);
    assert.equal(emoji.body.displayName.length, 256);
    assert.equal(emoji.body.displayName.charCodeAt(255), 0xd83d);
    const blankAfterCut = await d.json('PATCH', path, { displayName: ' '.repeat(256) + 'x' });
    assert.equal(blankAfterCut.status, 400);
    assert.equal(blankAfterCut.body.code, 'invalid_metadata');
  });

  it('binds pull requests: a new number is added, the same number replaces its entry, each change is an event', async () => {
    const result = validatorFor('SessionMetadataResult');
    const { sessionId } = await newSession(d);
    const events = await EventReader.open(d, sessionId);
    const path = `/session/${sessionId}/metadata`;
    const pr12 = { number: 12, url: 'https://github.com/o/r/pull/12', state: 'open' };
    const first = await d.json('PATCH', path, { pr: pr12 });
    assert.equal(first.status, 200);
    assert.ok(result(first.body));
    assert.deepEqual(first.body, { sessionId, prs: [pr12] });
    const merged = { ...pr12, state: 'merged' };
    const second = await d.json('PATCH', path, { displayName: 'Release', pr: merged });
    assert.deepEqual(second.body, { sessionId, displayName: 'Release', prs: [merged] });
    const pr13 = { number: 13, url: 'https://github.com/o/r/pull/13' };
    const third = await d.json('PATCH', path, { pr: pr13 });
    assert.deepEqual(third.body.prs, [merged, pr13]);
    const updates: WireEvent[] = [];
    for (let i = 0; i < 4; i++) updates.push(await events.until((e) => e.type === 'session_metadata_updated' && !updates.includes(e)));
    assert.deepEqual(updates.map((e) => e.data), [
      { sessionId, prs: [pr12] },
      { sessionId, displayName: 'Release', titleSource: 'manual' },
      { sessionId, prs: [merged], displayName: 'Release' },
      { sessionId, prs: [merged, pr13], displayName: 'Release' },
    ]);
    assert.deepEqual((await d.json('GET', `/session/${sessionId}/status`)).body.prs, [merged, pr13]);
    events.close();
  });

  it('switches the model: 200, model_switched, the context shows it and the next turn asks that model', async () => {
    const { sessionId, clientId } = await newSession(d);
    const events = await EventReader.open(d, sessionId);
    const res = await d.json('POST', `/session/${sessionId}/model`, { modelId: 'scripted/scripted-model-2' }, { 'x-qwen-client-id': clientId });
    assert.equal(res.status, 200);
    assert.ok(validatorFor('SessionModelResult')(res.body));
    const switched = await events.type('model_switched');
    assert.deepEqual(switched.data, { sessionId, modelId: 'scripted/scripted-model-2' });
    assert.equal(switched.originatorClientId, clientId);
    const context = await d.json('GET', `/session/${sessionId}/context`);
    assert.equal(context.body.state.models.currentModelId, 'scripted/scripted-model-2');
    const { promptId } = (await submit(d, sessionId, 'which model?')).body;
    await events.terminal(promptId);
    assert.equal(s.model.completions().at(-1)!.model, 'scripted-model-2');
    events.close();
  });

  it('refuses an unknown model with 404 model_not_found and tells every subscriber with model_switch_failed', async () => {
    const { sessionId } = await newSession(d);
    const events = await EventReader.open(d, sessionId);
    const res = await d.json('POST', `/session/${sessionId}/model`, { modelId: 'scripted/imaginary' });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'model_not_found');
    const failed = await events.type('model_switch_failed');
    assert.equal(failed.data.sessionId, sessionId);
    assert.equal(failed.data.requestedModelId, 'scripted/imaginary');
    assert.ok(failed.data.error.length > 0);
    const context = await d.json('GET', `/session/${sessionId}/context`);
    assert.equal(context.body.state.models.currentModelId, 'scripted/scripted-model', 'the model is unchanged');
    events.close();
  });

  it('reports the whole SessionSummary while a permission is pending, options with label and ACP kind', async () => {
    const summary = validatorFor('SessionSummary');
    const { sessionId, clientId } = await newSession(d, { sourceType: 'ide', sourceId: 'vscode-1' });
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue(writeReply('notes.txt', 'remember this'), { kind: 'reply', text: 'written' });
    const { promptId } = (await submit(d, sessionId, 'take a note', {}, { 'x-qwen-client-id': clientId })).body;
    const request = await events.type('permission_request');

    const status = await d.json('GET', `/session/${sessionId}/status`, undefined, { 'x-qwen-client-id': clientId });
    assert.equal(status.status, 200);
    assert.ok(summary(status.body), JSON.stringify(summary.errors));
    const body = status.body;
    assert.equal(body.sessionId, sessionId);
    assert.equal(body.workspaceCwd, d.workspace);
    assert.equal(body.clientCount, 1);
    assert.equal(body.hasActivePrompt, true);
    assert.equal(body.activeWorkState, 'active');
    assert.equal(body.isWaitingForPermission, true);
    assert.equal(body.isWaitingForUserQuestion, false);
    assert.equal(body.pendingInteractionCount, 1);
    assert.equal(body.sourceType, 'ide');
    assert.equal(body.sourceId, 'vscode-1');
    const [pending] = body.pendingInteractions;
    assert.equal(pending.requestId, request.data.requestId);
    assert.equal(pending.kind, 'permission');
    assert.ok(!Number.isNaN(Date.parse(pending.createdAt)));
    assert.equal(pending.action.type, 'edit');
    assert.equal(pending.action.title, 'Write notes.txt');
    assert.deepEqual(pending.action.input, { path: 'notes.txt', content: 'remember this', expectedSha256: null });
    assert.deepEqual(pending.action.content, [{ type: 'diff', path: `${d.workspace}/notes.txt`, oldText: null, newText: 'remember this' }]);
    assert.deepEqual(
      pending.options.map((o: { kind: string }) => o.kind),
      ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
    );
    for (const o of pending.options) {
      assert.equal(typeof o.label, 'string');
      assert.equal(o.name, undefined, 'status options use label, events use name (spec §14.18)');
    }
    assert.deepEqual(
      request.data.options.map((o: { optionId: string }) => o.optionId),
      pending.options.map((o: { optionId: string }) => o.optionId),
    );

    const vote = await d.json('POST', `/session/${sessionId}/permission/${request.data.requestId}`, select('proceed_once'));
    assert.equal(vote.status, 200);
    await events.terminal(promptId);
    const idle = (await d.json('GET', `/session/${sessionId}/status`)).body;
    assert.ok(summary(idle));
    assert.equal(idle.hasActivePrompt, false);
    assert.equal(idle.isWaitingForPermission, false);
    assert.deepEqual(idle.pendingInteractions, []);
    assert.ok(Date.parse(idle.updatedAt) >= Date.parse(idle.createdAt));
    events.close();
  });

  it('reports a pending workspace_ask as a user_question with questions and answer keys', async () => {
    const summary = validatorFor('SessionSummary');
    const { sessionId } = await newSession(d);
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'workspace_ask', arguments: { question: 'Which colour?' } }] },
      { kind: 'reply', text: 'thanks' },
    );
    const { promptId } = (await submit(d, sessionId, 'ask me')).body;
    const request = await events.type('permission_request');
    const status = (await d.json('GET', `/session/${sessionId}/status`)).body;
    assert.ok(summary(status), JSON.stringify(summary.errors));
    assert.equal(status.isWaitingForUserQuestion, true);
    assert.equal(status.isWaitingForPermission, false);
    const [q] = status.pendingInteractions;
    assert.equal(q.kind, 'user_question');
    assert.equal(q.requestId, request.data.requestId);
    assert.equal(q.questions.length, 1);
    assert.equal(q.questions[0].question, 'Which colour?');
    assert.equal(q.questions[0].answerKey, '0');
    assert.equal(q.questions[0].multiSelect, false);
    const submitOption = q.options.find((o: { kind: string }) => o.kind === 'allow_once').optionId;
    await d.json('POST', `/session/${sessionId}/permission/${q.requestId}`, select(submitOption, { '0': 'Teal' }));
    await events.terminal(promptId);
    events.close();
  });

  it('answers /context with the SessionContext: models, approval modes and config options', async () => {
    const { sessionId } = await newSession(d, { approvalMode: 'auto-edit' });
    const res = await d.json('GET', `/session/${sessionId}/context`);
    assert.equal(res.status, 200);
    assert.ok(validatorFor('SessionContext')(res.body));
    const { state } = res.body;
    assert.equal(state.models.currentModelId, 'scripted/scripted-model');
    assert.deepEqual(
      state.models.availableModels.map((m: { modelId: string }) => m.modelId),
      ['scripted/scripted-model', 'scripted/scripted-model-2'],
    );
    assert.equal(state.modes.currentModeId, 'auto-edit');
    assert.deepEqual(
      state.modes.availableModes.map((m: { id: string }) => m.id),
      ['plan', 'default', 'auto-edit', 'auto', 'yolo'],
    );
    assert.ok(Array.isArray(state.configOptions));
  });
});
