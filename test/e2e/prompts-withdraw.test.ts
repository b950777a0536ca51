import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stackPerSuite, type Stack } from '../support/stack.js';
import { EventReader, newSession, submit, type WireEvent } from '../support/session-client.js';

const ofPrompt = (events: readonly WireEvent[], promptId: string) => events.filter((e) => e.data?.promptId === promptId || e.promptId === promptId).map((e) => e.type);

/**
 * Berth's own `DELETE /session/{id}/pending-prompts/{promptId}` (docs/client-api.md §6.5): the
 * contract's cancel reaches only the running prompt, so a person who queued a prompt by mistake
 * withdraws it here.
 */
describe('withdrawing one prompt (§6.5)', () => {
  let s: Stack;
  stackPerSuite((stack) => (s = stack));

  it('a queued prompt withdrawn never runs: it ends cancelled and leaves the queue; the running one and the next go on', async () => {
    const d = s.daemon;
    const { sessionId, clientId } = await newSession(d);
    const as = { 'x-qwen-client-id': clientId };
    const events = await EventReader.open(d, sessionId);
    s.model.enqueue({ kind: 'hang', text: 'working' });
    const a = (await submit(d, sessionId, 'A', {}, as)).body.promptId;
    const b = (await submit(d, sessionId, 'B', {}, as)).body.promptId;
    const c = (await submit(d, sessionId, 'C', {}, as)).body.promptId;
    const withdrawn = await d.json('DELETE', `/session/${sessionId}/pending-prompts/${b}`, undefined, as);
    assert.equal(withdrawn.status, 200, JSON.stringify(withdrawn.body));
    assert.deepEqual(withdrawn.body, { removed: true }, 'qwen serve’s answer, which its Web Shell reads');
    const end = await events.terminal(b);
    assert.equal(end.type, 'turn_complete');
    assert.equal(end.data.stopReason, 'cancelled');
    const listed = await d.json('GET', `/session/${sessionId}/pending-prompts`, undefined, as);
    assert.deepEqual(listed.body.pendingPrompts.map((p: any) => p.promptId), [a, c]);
    const left = await events.type('pending_prompt_completed', (e) => e.data.promptId === b);
    assert.equal(left.data.state, 'removed');
    const again = await d.json('DELETE', `/session/${sessionId}/pending-prompts/${b}`, undefined, as);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { removed: false });

    // The running prompt withdrawn is cancelled as POST …/cancel cancels it; C then runs. A must be
    // hanging in the model first: a first turn that was still loading its client when cancelled
    // would leave the hang to C.
    await events.type('session_update', (e) => e.promptId === a && e.data.update?.sessionUpdate === 'agent_message_chunk');
    s.model.enqueue({ kind: 'reply', text: 'C done' });
    assert.deepEqual((await d.json('DELETE', `/session/${sessionId}/pending-prompts/${a}`, undefined, as)).body, { removed: true });
    assert.equal((await events.terminal(a)).data.stopReason, 'cancelled');
    assert.equal((await events.terminal(c)).data.stopReason, 'end_turn');
    assert.equal(ofPrompt(events.seen, b).includes('user_message_chunk') || events.seen.some((e) => e.type === 'pending_prompt_started' && e.data.promptId === b), false, 'B never started');
    events.close();
  });

  it('an unknown prompt id is not removed, and an unknown session is refused', async () => {
    const d = s.daemon;
    const { sessionId, clientId } = await newSession(d);
    const r = await d.json('DELETE', `/session/${sessionId}/pending-prompts/no-such-prompt`, undefined, { 'x-qwen-client-id': clientId });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { removed: false });
    const gone = await d.json('DELETE', '/session/00000000-0000-4000-8000-000000000000/pending-prompts/x');
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'session_not_found');
  });
});
