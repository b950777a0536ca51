import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { validatorFor } from '../../src/http/contract.js';
import type { PermissionTimeoutOutcome } from '../../src/config/config.js';
import { writeReply } from '../support/model-script.js';
import { startStack, stackPerSuite, type Stack } from '../support/stack.js';
import { EventReader, newSession, optionOf, select, submit, type WireEvent } from '../support/session-client.js';
import type { TestDaemon } from '../support/daemon.js';

/** Permission requests and the two vote routes over raw HTTP (spec §9, OpenAPI tag Permissions). */

const errorShape = validatorFor('Error');
const emptyObject = validatorFor('EmptyObject');

interface Pending {
  readonly sessionId: string;
  readonly clientId: string;
  readonly promptId: string;
  readonly request: WireEvent;
  readonly events: EventReader;
}

/** A session whose turn waits on a permission request for writing `path`. */
async function pendingWrite(s: Stack, path: string, session?: { sessionId: string; clientId: string }): Promise<Pending> {
  const d = s.daemon;
  const { sessionId, clientId } = session ?? (await newSession(d));
  const events = await EventReader.open(d, sessionId, { lastEventId: null });
  s.model.enqueue(writeReply(path, 'voted in'), { kind: 'reply', text: 'finished' });
  const { promptId } = (await submit(d, sessionId, `write ${path}`, {}, { 'x-qwen-client-id': clientId })).body;
  const request = await events.type('permission_request', (e) => e.promptId === promptId);
  return { sessionId, clientId, promptId, request, events };
}

const toolMessages = (s: Stack): string => JSON.stringify(s.model.completions().at(-1)!.messages.filter((m: { role: string }) => m.role === 'tool'));

describe('permission votes (spec §9)', () => {
  let s: Stack;
  let d: TestDaemon;
  stackPerSuite((stack) => {
    s = stack;
    d = stack.daemon;
  });

  it('asks with an object toolCall and ACP options; an allow vote answers 200 {} and the tool runs', async () => {
    const p = await pendingWrite(s, 'allowed.txt');
    const req = p.request.data;
    assert.equal(req.sessionId, p.sessionId);
    assert.equal(typeof req.requestId, 'string');
    assert.equal(req.toolCall.toolCallId.length > 0, true);
    assert.equal(req.toolCall.kind, 'edit');
    assert.equal(p.request.promptId, p.promptId);
    assert.equal(p.request.originatorClientId, p.clientId);
    for (const o of req.options) assert.ok(o.optionId && o.name && ['allow_once', 'allow_always', 'reject_once', 'reject_always'].includes(o.kind));

    const vote = await d.json('POST', `/session/${p.sessionId}/permission/${req.requestId}`, select(optionOf(p.request, 'allow_once')), {
      'x-qwen-client-id': p.clientId,
    });
    assert.equal(vote.status, 200);
    assert.deepEqual(vote.body, {});
    assert.ok(emptyObject(vote.body));
    const resolved = await p.events.type('permission_resolved');
    assert.equal(resolved.data.requestId, req.requestId);
    assert.deepEqual(resolved.data.outcome, { outcome: 'selected', optionId: optionOf(p.request, 'allow_once') });
    assert.equal(resolved.data.voterClientId, p.clientId);
    assert.equal(resolved.originatorClientId, p.clientId, 'the voter, on this event');
    assert.equal((await p.events.terminal(p.promptId)).data.stopReason, 'end_turn');
    assert.equal(readFileSync(join(d.workspace, 'allowed.txt'), 'utf8'), 'voted in');
    p.events.close();
  });

  it('takes a vote on the legacy POST /permission/{requestId} route too', async () => {
    const p = await pendingWrite(s, 'legacy.txt');
    const vote = await d.json('POST', `/permission/${p.request.data.requestId}`, select('proceed_once'));
    assert.equal(vote.status, 200);
    assert.deepEqual(vote.body, {});
    await p.events.terminal(p.promptId);
    assert.ok(existsSync(join(d.workspace, 'legacy.txt')));
    p.events.close();
  });

  it('refuses a malformed vote body with 400 and leaves the request pending', async () => {
    const p = await pendingWrite(s, 'malformed.txt');
    const path = `/session/${p.sessionId}/permission/${p.request.data.requestId}`;
    for (const body of [
      {},
      { outcome: 'selected' },
      { outcome: { outcome: 'selected' } },
      { outcome: { outcome: 'selected', optionId: '' } },
      { outcome: { outcome: 'approved', optionId: 'proceed_once' } },
      { outcome: { outcome: 'cancelled', optionId: 'proceed_once' } },
      { outcome: { outcome: 'selected', optionId: 'proceed_once' }, answers: { '0': 7 } },
    ]) {
      for (const route of [path, `/permission/${p.request.data.requestId}`]) {
        const res = await d.json('POST', route, body);
        assert.equal(res.status, 400, `${route} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'invalid_permission_response');
        assert.ok(errorShape(res.body));
      }
    }
    const bad = await d.json('POST', path, '{"outcome":');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_json');
    const status = (await d.json('GET', `/session/${p.sessionId}/status`)).body;
    assert.equal(status.pendingInteractions[0].requestId, p.request.data.requestId, 'still pending');
    await d.json('POST', path, select('proceed_once'));
    await p.events.terminal(p.promptId);
    p.events.close();
  });

  it('refuses an option that was not offered with 400 invalid_option_id naming request and option', async () => {
    const p = await pendingWrite(s, 'option.txt');
    const requestId = p.request.data.requestId;
    for (const optionId of ['proceed_sometimes', '__cancelled__']) {
      for (const path of [`/session/${p.sessionId}/permission/${requestId}`, `/permission/${requestId}`]) {
        const res = await d.json('POST', path, select(optionId));
        assert.equal(res.status, 400);
        assert.equal(res.body.code, 'invalid_option_id');
        assert.equal(res.body.requestId, requestId);
        assert.equal(res.body.optionId, optionId);
      }
    }
    assert.equal(p.events.seen.filter((e) => e.type === 'permission_resolved').length, 0);
    await d.json('POST', `/session/${p.sessionId}/permission/${requestId}`, select('proceed_once'));
    await p.events.terminal(p.promptId);
    p.events.close();
  });

  it('refuses a vote from a client id not registered on the session with 400 invalid_client_id, on both routes', async () => {
    const p = await pendingWrite(s, 'stranger.txt');
    const requestId = p.request.data.requestId;
    const stranger = { 'x-qwen-client-id': 'client_somebody-else' };
    for (const path of [`/session/${p.sessionId}/permission/${requestId}`, `/permission/${requestId}`]) {
      const res = await d.json('POST', path, select('proceed_once'), stranger);
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'invalid_client_id');
      assert.equal(res.body.sessionId, p.sessionId);
    }
    assert.equal((await d.json('GET', `/session/${p.sessionId}/status`)).body.isWaitingForPermission, true);
    await d.json('POST', `/permission/${requestId}`, { outcome: { outcome: 'cancelled' } }, { 'x-qwen-client-id': p.clientId });
    await p.events.terminal(p.promptId);
    p.events.close();
  });

  it('answers 404 for an unknown request and for an unknown session', async () => {
    const { sessionId } = await newSession(d);
    const unknown = '0b6a2f3e-4c5d-4e6f-8a7b-9c0d1e2f3a4b';
    const res = await d.json('POST', `/session/${sessionId}/permission/${unknown}`, select('proceed_once'));
    assert.equal(res.status, 404);
    assert.equal(res.body.sessionId, sessionId);
    assert.equal(res.body.requestId, unknown);
    assert.ok(errorShape(res.body));
    const legacy = await d.json('POST', `/permission/${unknown}`, select('proceed_once'));
    assert.equal(legacy.status, 404);
    assert.equal(legacy.body.requestId, unknown);
    const noSession = await d.json('POST', `/session/${unknown}/permission/${unknown}`, select('proceed_once'));
    assert.equal(noSession.status, 404);
    assert.equal(noSession.body.code, 'session_not_found');
  });

  it('lets the first vote win: the second gets 404 and every subscriber sees permission_already_resolved', async () => {
    const p = await pendingWrite(s, 'race.txt');
    const requestId = p.request.data.requestId;
    const [a, b] = await Promise.all([
      d.json('POST', `/session/${p.sessionId}/permission/${requestId}`, select('proceed_once')),
      d.json('POST', `/permission/${requestId}`, select('cancel')),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 404]);
    const winner = a.status === 200 ? 'proceed_once' : 'cancel';
    const already = await p.events.type('permission_already_resolved');
    assert.deepEqual(already.data, { requestId, sessionId: p.sessionId, outcome: { outcome: 'selected', optionId: winner } });
    await p.events.terminal(p.promptId);
    assert.equal(p.events.seen.filter((e) => e.type === 'permission_resolved').length, 1);
    // Any later vote, on either route, is another 404 and another permission_already_resolved.
    assert.equal((await d.json('POST', `/session/${p.sessionId}/permission/${requestId}`, select('proceed_once'))).status, 404);
    assert.equal((await d.json('POST', `/permission/${requestId}`, select('proceed_once'))).status, 404);
    await p.events.until((e) => e.type === 'permission_already_resolved' && e !== already);
    assert.equal(p.events.seen.filter((e) => e.type === 'permission_already_resolved').length >= 2, true);
    p.events.close();
  });

  it('a reject vote fails the call with permission_rejected, writes nothing, and tells the model', async () => {
    const p = await pendingWrite(s, 'rejected.txt');
    await d.json('POST', `/session/${p.sessionId}/permission/${p.request.data.requestId}`, select(optionOf(p.request, 'reject_once')));
    await p.events.terminal(p.promptId);
    const update = p.events.seen.find(
      (e) => e.type === 'session_update' && e.data.update.sessionUpdate === 'tool_call_update' && e.data.update.status === 'failed',
    )!;
    assert.equal(update.data.update.rawOutput.error.code, 'permission_rejected');
    assert.equal(existsSync(join(d.workspace, 'rejected.txt')), false);
    assert.match(toolMessages(s), /permission_rejected/);
    p.events.close();
  });

  it('a cancelled vote resolves the request as cancelled and the tool does not run', async () => {
    const p = await pendingWrite(s, 'vote-cancelled.txt');
    const res = await d.json('POST', `/session/${p.sessionId}/permission/${p.request.data.requestId}`, { outcome: { outcome: 'cancelled' } });
    assert.equal(res.status, 200);
    const resolved = await p.events.type('permission_resolved');
    assert.deepEqual(resolved.data.outcome, { outcome: 'cancelled' });
    await p.events.terminal(p.promptId);
    assert.equal(existsSync(join(d.workspace, 'vote-cancelled.txt')), false);
    p.events.close();
  });

  it('remembers allow_always and reject_always for the rest of the session', async () => {
    const first = await pendingWrite(s, 'always-1.txt');
    await d.json('POST', `/session/${first.sessionId}/permission/${first.request.data.requestId}`, select(optionOf(first.request, 'allow_always')));
    await first.events.terminal(first.promptId);
    const events = await EventReader.open(d, first.sessionId, { lastEventId: null });
    s.model.enqueue(writeReply('always-2.txt', 'voted in'), { kind: 'reply', text: 'again' });
    const second = (await submit(d, first.sessionId, 'write another')).body.promptId;
    await events.terminal(second);
    assert.equal(events.seen.some((e) => e.type === 'permission_request'), false, 'allow_always: not asked again');
    assert.ok(existsSync(join(d.workspace, 'always-2.txt')));
    first.events.close();
    events.close();

    const other = await pendingWrite(s, 'never-1.txt');
    await d.json('POST', `/session/${other.sessionId}/permission/${other.request.data.requestId}`, select(optionOf(other.request, 'reject_always')));
    await other.events.terminal(other.promptId);
    const again = await EventReader.open(d, other.sessionId, { lastEventId: null });
    s.model.enqueue(writeReply('never-2.txt', 'voted in'), { kind: 'reply', text: 'refused' });
    const third = (await submit(d, other.sessionId, 'try once more')).body.promptId;
    await again.terminal(third);
    assert.equal(again.seen.some((e) => e.type === 'permission_request'), false, 'reject_always: not asked again');
    assert.equal(existsSync(join(d.workspace, 'never-2.txt')), false);
    other.events.close();
    again.close();
  });

  it('turns workspace_ask into a user_question whose answer, given with answers, reaches the model', async () => {
    const { sessionId } = await newSession(d);
    const events = await EventReader.open(d, sessionId, { lastEventId: null });
    s.model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'workspace_ask', arguments: { question: 'Which colour should the button be?' } }] },
      { kind: 'reply', text: 'teal it is' },
    );
    const { promptId } = (await submit(d, sessionId, 'ask me first')).body;
    const request = await events.type('permission_request');
    assert.equal(request.data.toolCall._meta.interactionKind, 'user_question');
    assert.equal(request.data.toolCall._meta.questions[0].answerKey, '0');
    const res = await d.json('POST', `/session/${sessionId}/permission/${request.data.requestId}`, select(optionOf(request, 'allow_once'), { '0': 'Teal' }));
    assert.equal(res.status, 200);
    await events.terminal(promptId);
    assert.match(toolMessages(s), /Teal/);
    events.close();
  });
});

describe('--permission-timeout-ms (beyond qwen)', () => {
  for (const [outcome, expected, written] of [
    ['reject', 'reject_once', false],
    ['allow', 'allow_once', true],
    ['cancel', null, false],
  ] as const) {
    it(`resolves an unanswered request after the timeout as ${outcome} and says so (reason timeout)`, async () => {
      const s = await startStack({ config: { permissionTimeoutMs: 150, permissionTimeoutOutcome: outcome as PermissionTimeoutOutcome } });
      try {
        const p = await pendingWrite(s, 'timed.txt');
        const resolved = await p.events.type('permission_resolved');
        assert.equal(resolved.data.requestId, p.request.data.requestId);
        assert.equal(resolved.data.reason, 'timeout');
        assert.equal(resolved.data.voterClientId, undefined);
        if (expected === null) assert.deepEqual(resolved.data.outcome, { outcome: 'cancelled' });
        else assert.deepEqual(resolved.data.outcome, { outcome: 'selected', optionId: optionOf(p.request, expected) });
        await p.events.terminal(p.promptId);
        assert.equal(existsSync(join(s.daemon.workspace, 'timed.txt')), written);
        const late = await s.daemon.json('POST', `/permission/${p.request.data.requestId}`, select('proceed_once'));
        assert.equal(late.status, 404);
        p.events.close();
      } finally {
        await s.close();
      }
    });
  }
});
