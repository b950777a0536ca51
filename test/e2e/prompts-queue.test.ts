import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { validatorFor } from '../../src/http/contract.js';
import { chatRequestIndex, writeReply } from '../support/model-script.js';
import { stackPerSuite, type Stack } from '../support/stack.js';
import { eventually, EventReader, newSession, select, submit, type WireEvent } from '../support/session-client.js';
import type { TestDaemon } from '../support/daemon.js';

/** The per-session prompt FIFO over raw HTTP (spec §6): admission, order, pending prompts, cancel, one terminal per prompt. */

const terminals = (events: readonly WireEvent[], promptId: string) =>
  events.filter((e) => (e.type === 'turn_complete' || e.type === 'turn_error') && e.data.promptId === promptId);

/** Whether a process whose command line contains `marker` is alive (Linux /proc). */
function processAlive(marker: string): boolean {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) return true;
    } catch {
      /* gone meanwhile */
    }
  }
  return false;
}

describe('prompt admission and the FIFO (spec §6.1, §6.4)', () => {
  let s: Stack;
  let d: TestDaemon;
  stackPerSuite((stack) => {
    s = stack;
    d = stack.daemon;
  });

  it('admits with 202 {promptId, lastEventId, eventEpoch}; every event of the turn comes after lastEventId', async () => {
    const { sessionId, clientId } = await newSession(d, { approvalMode: 'yolo' });
    const events = await EventReader.open(d, sessionId);
    const res = await submit(d, sessionId, 'Say hello', {}, { 'x-qwen-client-id': clientId });
    assert.equal(res.status, 202);
    assert.ok(validatorFor('PromptAccepted')(res.body));
    const { promptId, lastEventId, eventEpoch } = res.body;
    assert.equal(eventEpoch, events.response.headers.get('x-qwen-event-epoch'));
    const end = await events.terminal(promptId);
    assert.equal(end.type, 'turn_complete');
    assert.equal(end.data.stopReason, 'end_turn');
    const turn = events.seen.filter((e) => e.promptId === promptId);
    assert.ok(turn.length >= 2);
    for (const e of turn) {
      assert.ok(e.id! > lastEventId, `${e.type} #${e.id} after ${lastEventId}`);
      assert.equal(e.originatorClientId, clientId, 'turn events carry the submitter');
    }
    const echo = turn[0]!;
    assert.equal(echo.data.update.sessionUpdate, 'user_message_chunk');
    assert.deepEqual(echo.data.update.content, { type: 'text', text: 'Say hello' });
    // A second prompt's lastEventId is where the first turn ended.
    const next = await submit(d, sessionId, 'again');
    assert.equal(next.body.lastEventId, events.seen.at(-1)!.id);
    await events.terminal(next.body.promptId);
    events.close();
  });

  it('queues prompts behind a running one: pending_prompt_added, then started, completed, in order, one terminal each', async () => {
    const { sessionId, clientId } = await newSession(d);
    const as = { 'x-qwen-client-id': clientId };
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue(writeReply('fifo.txt', 'x'), { kind: 'reply', text: 'A done' });
    const a = (await submit(d, sessionId, 'A', {}, as)).body.promptId;
    const request = await events.type('permission_request');
    const b = (await submit(d, sessionId, 'B', {}, as)).body.promptId;
    const c = (await submit(d, sessionId, 'C')).body.promptId;

    const pending = await d.json('GET', `/session/${sessionId}/pending-prompts`, undefined, as);
    assert.equal(pending.status, 200);
    assert.ok(validatorFor('PendingPrompts')(pending.body), JSON.stringify(validatorFor('PendingPrompts').errors));
    const list = pending.body.pendingPrompts;
    assert.deepEqual(list.map((p: { promptId: string; state: string }) => [p.promptId, p.state]), [[a, 'running'], [b, 'queued'], [c, 'queued']]);
    assert.deepEqual(list.map((p: { text: string }) => p.text), ['A', 'B', 'C']);
    assert.equal(list[1].originatorClientId, clientId);
    assert.equal(list[2].originatorClientId, undefined, 'an anonymous prompt has no originator');
    assert.ok(list.every((p: { queuedAt: number }) => Number.isInteger(p.queuedAt)));

    await d.json('POST', `/session/${sessionId}/permission/${request.data.requestId}`, select('proceed_once'));
    await events.until((e) => e.type === 'pending_prompt_completed' && e.data.promptId === c);
    const trace = events.seen
      .filter((e) => e.type.startsWith('pending_prompt_') || e.type === 'turn_complete' || e.type === 'turn_error')
      .map((e) => `${e.type}:${[a, b, c].indexOf(e.data.promptId)}`);
    assert.deepEqual(trace, [
      'pending_prompt_added:1',
      'pending_prompt_added:2',
      'turn_complete:0',
      'pending_prompt_started:1',
      'turn_complete:1',
      'pending_prompt_completed:1',
      'pending_prompt_started:2',
      'turn_complete:2',
      'pending_prompt_completed:2',
    ]);
    const added = events.seen.find((e) => e.type === 'pending_prompt_added')!;
    assert.deepEqual(Object.keys(added.data).sort(), ['promptId', 'queuedAt', 'sessionId', 'text']);
    assert.equal(added.data.text, 'B');
    const completed = events.seen.find((e) => e.type === 'pending_prompt_completed')!;
    assert.equal(completed.data.state, 'completed');
    for (const p of [a, b, c]) assert.equal(terminals(events.seen, p).length, 1);
    assert.deepEqual((await d.json('GET', `/session/${sessionId}/pending-prompts`)).body, { pendingPrompts: [] });
    events.close();
  });

  it('one session waiting on a person never blocks another session’s turn', async () => {
    const waiting = await newSession(d);
    const busy = await newSession(d);
    const wEvents = await EventReader.open(d, waiting.sessionId);
    s.model.enqueue(writeReply('wait.txt', 'x'), { kind: 'reply', text: 'after the vote' });
    const held = (await submit(d, waiting.sessionId, 'needs a vote')).body.promptId;
    const request = await wEvents.type('permission_request');
    const bEvents = await EventReader.open(d, busy.sessionId);
    const quick = (await submit(d, busy.sessionId, 'quick one')).body.promptId;
    assert.equal((await bEvents.terminal(quick)).type, 'turn_complete');
    assert.equal(terminals(wEvents.seen, held).length, 0, 'the first session is still waiting');
    await d.json('POST', `/session/${waiting.sessionId}/permission/${request.data.requestId}`, select('proceed_once'));
    assert.equal((await wEvents.terminal(held)).type, 'turn_complete');
    wEvents.close();
    bEvents.close();
  });
});

describe('cancel (spec §6.3)', () => {
  let s: Stack;
  let d: TestDaemon;
  stackPerSuite((stack) => {
    s = stack;
    d = stack.daemon;
  });

  it('cancels only the running prompt: the model request is aborted, the turn ends cancelled, the queued prompt then runs', async () => {
    const { sessionId, clientId } = await newSession(d);
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue({ kind: 'hang', text: 'working…' });
    const running = (await submit(d, sessionId, 'long')).body.promptId;
    const index = await chatRequestIndex(s.model, 0);
    const queued = (await submit(d, sessionId, 'after')).body.promptId;
    await events.type('pending_prompt_added');

    const res = await d.json('POST', `/session/${sessionId}/cancel`, {}, { 'x-qwen-client-id': clientId });
    assert.equal(res.status, 204);
    const cancelled = await events.type('prompt_cancelled');
    assert.equal(cancelled.promptId, running);
    assert.equal(cancelled.originatorClientId, clientId);
    assert.equal(cancelled.data.sessionId, sessionId);
    const end = await events.terminal(running);
    assert.equal(end.type, 'turn_complete');
    assert.equal(end.data.stopReason, 'cancelled');
    assert.ok(Number.isInteger(end.data.promptCancelled.cancelledAt));
    assert.ok(end.data.promptCancelled.elapsedMs >= 0);
    assert.equal((await s.model.waitForClientClose(index)).clientClosedEarly, true);

    const next = await events.terminal(queued);
    assert.equal(next.type, 'turn_complete');
    assert.equal(next.data.stopReason, 'end_turn');
    const order = events.seen.map((e) => e.type);
    assert.ok(order.indexOf('pending_prompt_started') > order.indexOf('turn_complete'), 'the queued prompt starts after the cancelled one ended');
    assert.equal(terminals(events.seen, running).length, 1);
    events.close();
  });

  it('answers 204 to a cancel while idle and leaves the session usable', async () => {
    const { sessionId } = await newSession(d);
    assert.equal((await d.json('POST', `/session/${sessionId}/cancel`, {})).status, 204);
    assert.equal((await d.json('POST', `/session/${sessionId}/cancel`)).status, 204, 'the body is optional');
    const events = await EventReader.open(d, sessionId);
    const { promptId } = (await submit(d, sessionId, 'still here?')).body;
    assert.equal((await events.terminal(promptId)).data.stopReason, 'end_turn');
    events.close();
  });

  it('resolves the running turn’s pending permission request as cancelled, and the tool never runs', async () => {
    const { sessionId } = await newSession(d);
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue(writeReply('cancelled.txt', 'x'));
    const { promptId } = (await submit(d, sessionId, 'write then stop')).body;
    const request = await events.type('permission_request');
    assert.equal((await d.json('POST', `/session/${sessionId}/cancel`, {})).status, 204);
    const resolved = await events.type('permission_resolved');
    assert.equal(resolved.data.requestId, request.data.requestId);
    assert.deepEqual(resolved.data.outcome, { outcome: 'cancelled' });
    assert.equal((await events.terminal(promptId)).data.stopReason, 'cancelled');
    assert.equal(existsSync(join(d.workspace, 'cancelled.txt')), false);
    const late = await d.json('POST', `/session/${sessionId}/permission/${request.data.requestId}`, select('proceed_once'));
    assert.equal(late.status, 404, 'a cancelled request takes no more votes');
    events.close();
  });

  it('kills a command the cancelled turn started (workspace_exec of sleep in yolo mode)', async () => {
    const marker = `987.${process.pid}`;
    const { sessionId } = await newSession(d, { approvalMode: 'yolo' });
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'workspace_exec', arguments: { command: `sleep ${marker}`, waitMs: 0 } }] },
      { kind: 'hang' },
    );
    const { promptId } = (await submit(d, sessionId, 'run something long')).body;
    const started = await events.until(
      (e) => e.type === 'session_update' && e.data.update.sessionUpdate === 'tool_call_update' && e.data.update.status === 'completed',
    );
    assert.equal(started.data.update.rawOutput.running, true);
    await chatRequestIndex(s.model, 1);
    assert.equal(processAlive(marker), true, 'the command runs after its tool call returned');
    assert.equal((await d.json('POST', `/session/${sessionId}/cancel`, {})).status, 204);
    assert.equal((await events.terminal(promptId)).data.stopReason, 'cancelled');
    await eventually(async () => processAlive(marker), (alive) => !alive);
    events.close();
  });
});
