import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startStack } from '../support/stack.js';
import { EventReader, newSession, submit, type WireEvent } from '../support/session-client.js';

/** `--prompt-deadline-ms` and `deadlineMs` over raw HTTP (spec §6.2): expiry is in-band, never an HTTP error. */

const terminals = (events: readonly WireEvent[], promptId: string) =>
  events.filter((e) => (e.type === 'turn_complete' || e.type === 'turn_error') && e.data.promptId === promptId);

describe('prompt deadlines (spec §6.2)', () => {
  it('advertises prompt_absolute_deadline only when --prompt-deadline-ms is set', async () => {
    const on = await startStack({ config: { promptDeadlineMs: 60_000 } });
    const off = await startStack();
    try {
      const caps = (await on.daemon.json('GET', '/capabilities')).body;
      assert.ok(caps.features.includes('prompt_absolute_deadline'));
      assert.equal(caps.limits.promptDeadlineMs, 60_000);
      assert.ok(!(await off.daemon.json('GET', '/capabilities')).body.features.includes('prompt_absolute_deadline'));
    } finally {
      await on.close();
      await off.close();
    }
  });

  it('ends a slow running prompt past the deadline with turn_error prompt_deadline_exceeded and frees the queue', async () => {
    const s = await startStack({ config: { promptDeadlineMs: 300 } });
    try {
      const d = s.daemon;
      const { sessionId } = await newSession(d);
      const events = await EventReader.open(d, sessionId);
      // A daemon's first turns may still be loading the model client (it loads after the first
      // requests); on a slow machine the 300 ms deadline can end such a turn before it asks the
      // model, leaving its scripted step to the next prompt. Warm up until a turn completes, dropping
      // the step a deadline left unused, so the deadline below is spent in the model.
      let warm = false;
      for (let attempt = 0; attempt < 10 && !warm; attempt++) {
        s.model.reset();
        s.model.enqueue({ kind: 'reply', text: 'ready' });
        warm = (await events.terminal((await submit(d, sessionId, 'warm up')).body.promptId)).type === 'turn_complete';
      }
      assert.ok(warm, 'a turn completes within the deadline once the model client is loaded');
      s.model.reset();
      s.model.enqueue({ kind: 'hang', text: 'slow…' });
      const running = (await submit(d, sessionId, 'slow')).body.promptId;
      const end = await events.terminal(running);
      assert.equal(end.type, 'turn_error');
      assert.equal(end.data.code, 'prompt_deadline_exceeded');
      assert.equal(end.data.errorKind, 'prompt_deadline_exceeded');
      assert.ok(end.data.message.length > 0);
      const status = (await d.json('GET', `/session/${sessionId}/status`)).body;
      assert.equal(status.hasTurnError, true);
      assert.equal(status.turnError.code, 'prompt_deadline_exceeded');
      // The queue is free again: the next prompt runs normally and clears the turn error.
      const next = (await submit(d, sessionId, 'quick')).body.promptId;
      assert.equal((await events.terminal(next)).type, 'turn_complete');
      assert.equal((await d.json('GET', `/session/${sessionId}/status`)).body.hasTurnError, false);
      assert.equal(terminals(events.seen, running).length, 1, 'the late end of the aborted turn publishes nothing');
      events.close();
    } finally {
      await s.close();
    }
  });

  it('ends a queued prompt whose deadline passes while it waits, and takes it out of the queue', async () => {
    const s = await startStack({ config: { promptDeadlineMs: 600_000 } });
    try {
      const d = s.daemon;
      const { sessionId } = await newSession(d);
      const events = await EventReader.open(d, sessionId);
      s.model.enqueue({ kind: 'hang' });
      const running = (await submit(d, sessionId, 'holds the queue')).body.promptId;
      const queued = (await submit(d, sessionId, 'waits too long', { deadlineMs: 200 })).body.promptId;
      const end = await events.terminal(queued);
      assert.equal(end.type, 'turn_error');
      assert.equal(end.data.code, 'prompt_deadline_exceeded');
      const removed = await events.type('pending_prompt_completed', (e) => e.data.promptId === queued);
      assert.equal(removed.data.state, 'removed');
      assert.equal(events.seen.some((e) => e.type === 'pending_prompt_started'), false, 'it never started');
      const pending = (await d.json('GET', `/session/${sessionId}/pending-prompts`)).body.pendingPrompts;
      assert.deepEqual(pending.map((p: { promptId: string }) => p.promptId), [running]);
      assert.equal(terminals(events.seen, running).length, 0, 'the running prompt goes on');
      await d.json('POST', `/session/${sessionId}/cancel`, {});
      assert.equal((await events.terminal(running)).data.stopReason, 'cancelled');
      assert.equal(terminals(events.seen, queued).length, 1);
      events.close();
    } finally {
      await s.close();
    }
  });

  it('lets a request shorten the server deadline but never extend it', async () => {
    const long = await startStack({ config: { promptDeadlineMs: 600_000 } });
    const short = await startStack({ config: { promptDeadlineMs: 300 } });
    try {
      for (const [stack, deadlineMs] of [[long, 200], [short, 600_000]] as const) {
        const d = stack.daemon;
        const { sessionId } = await newSession(d);
        const events = await EventReader.open(d, sessionId);
        stack.model.enqueue({ kind: 'hang' });
        const res = await submit(d, sessionId, 'slow', { deadlineMs });
        assert.equal(res.status, 202);
        const end = await events.terminal(res.body.promptId);
        assert.equal(end.type, 'turn_error', `deadlineMs ${deadlineMs}`);
        assert.equal(end.data.code, 'prompt_deadline_exceeded');
        events.close();
      }
    } finally {
      await long.close();
      await short.close();
    }
  });

  it('ignores a request deadline when the server has none', async () => {
    const s = await startStack();
    try {
      const d = s.daemon;
      const { sessionId } = await newSession(d);
      const events = await EventReader.open(d, sessionId);
      s.model.enqueue({ kind: 'reply', text: ['slow ', 'but ', 'finished'], delayMs: 50 });
      const res = await submit(d, sessionId, 'take your time', { deadlineMs: 1 });
      assert.equal(res.status, 202);
      const end = await events.terminal(res.body.promptId);
      assert.equal(end.type, 'turn_complete');
      assert.equal(end.data.stopReason, 'end_turn');
      events.close();
    } finally {
      await s.close();
    }
  });
});
