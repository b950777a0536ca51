import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestDaemon } from '../support/daemon.js';
import { runTurn } from '../support/history.js';
import { EventReader, eventually, newSession, submit } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * `--session-idle-timeout-ms` end to end (spec §5.10): a live session with no
 * stream, no work and no recent client is closed by the reaper with reason
 * `idle_timeout`, stays listed and loadable, and is not brought back by a
 * later status call. A session with an open stream or a running prompt is
 * left alone. Waits are "until it happened", never fixed sleeps.
 */
describe('idle reaping', () => {
  let stack: Stack;
  let d: TestDaemon;
  const status = (id: string) => d.json('GET', `/session/${id}/status`);
  const reaped = (id: string) => eventually(() => status(id), (r) => r.status === 404);

  before(async () => {
    // 1.5 s: on a loaded 2-core runner the test's own loop can stall for hundreds of ms between a session's
    // answer and its next request, and an idle timeout shorter than that reaps a session the test is using.
    stack = await startStack({ config: { sessionIdleTimeoutMs: 1500, sessionReapIntervalMs: 25 } });
    d = stack.daemon;
  });
  after(async () => {
    await stack?.close();
  });

  test('an unattended idle session is closed with idle_timeout and stays listed and loadable', async () => {
    const { sessionId, clientId } = await newSession(d);
    stack.model.enqueue({ kind: 'reply', text: 'Remember this answer.' });
    await runTurn(d, sessionId, 'Something worth keeping', clientId);
    await reaped(sessionId);
    const listed = (await d.json('GET', '/sessions')).body.sessions.find((s: any) => s.sessionId === sessionId);
    assert.equal(listed.state, 'persisted');
    assert.equal(listed.closeReason, 'idle_timeout');
    // A session route does not revive a session that was closed on purpose.
    assert.equal((await status(sessionId)).status, 404);

    const loaded = await d.json('POST', `/session/${sessionId}/load`, {});
    assert.equal(loaded.status, 200);
    assert.equal(loaded.body.attached, false);
    const texts = loaded.body.compactedReplay.map((e: any) => e.data.update?.content?.text).filter(Boolean);
    assert.deepEqual(texts, ['Something worth keeping', 'Remember this answer.']);
    assert.equal((await status(sessionId)).status, 200);
  });

  test('a session with an open event stream or a running prompt is not reaped', async () => {
    const watched = await newSession(d);
    const stream = await EventReader.open(d, watched.sessionId);
    const busy = await newSession(d);
    const calls = stack.model.requests.length;
    stack.model.enqueue({ kind: 'hang', text: ['still going'] });
    const accepted = await submit(d, busy.sessionId, 'a long job', {}, { 'x-qwen-client-id': busy.clientId });
    await stack.model.waitForRequests(calls + 1);
    // Two sessions created after these, left alone, are reaped one after the other: by then the reaper
    // has looked at the watched and the busy session many times over.
    const first = await newSession(d);
    await reaped(first.sessionId);
    const second = await newSession(d);
    await reaped(second.sessionId);
    assert.equal((await status(watched.sessionId)).status, 200);
    const running = await status(busy.sessionId);
    assert.equal(running.status, 200);
    assert.equal(running.body.hasActivePrompt, true);

    stream.close();
    await d.json('POST', `/session/${busy.sessionId}/cancel`, {}, { 'x-qwen-client-id': busy.clientId });
    const events = await EventReader.open(d, busy.sessionId);
    await events.terminal(accepted.body.promptId);
    events.close();
    await reaped(watched.sessionId);
    await reaped(busy.sessionId);
  });
});
