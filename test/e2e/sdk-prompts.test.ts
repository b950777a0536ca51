import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DaemonClient,
  DaemonPendingPromptLimitError,
  DaemonSessionClient,
  isNonBlockingAccepted,
  type DaemonEvent,
} from '@qwen-code/sdk/daemon';
import { stackPerSuite, type Stack } from '../support/stack.js';
import { EventLog, ofType, sdkClient, terminalOf, text, update } from '../support/sdk.js';

/**
 * Issue 3 acceptance, prompt half: admission, awaiting results, the
 * resumable stream, cancel and the FIFO, as the official SDK sees them.
 */

const joinText = (events: readonly DaemonEvent[], kind: string) =>
  events
    .filter(update(kind))
    .map((e) => (e.data as any).update.content.text)
    .join('');

/** Every event a fresh subscription replays from id 0, up to its `replay_complete`. */
async function replayAll(client: DaemonClient, sessionId: string): Promise<DaemonEvent[]> {
  const log = new EventLog((signal) => client.subscribeEvents(sessionId, { lastEventId: 0, signal }));
  await log.waitFor(ofType('replay_complete'));
  await log.close();
  return log.events.filter((e) => e.id !== undefined);
}

describe('the official SDK prompts a session', { timeout: 60_000 }, () => {
  let stack: Stack;
  let client: DaemonClient;
  const thread = (c: DaemonClient = client) =>
    DaemonSessionClient.createOrAttach(c, { workspaceCwd: stack.daemon.workspace, sessionScope: 'thread' });

  stackPerSuite((started) => {
    stack = started;
    client = sdkClient(started);
  });

  test('DaemonClient.prompt resolves with end_turn, and the turn on the stream is the echo, the reasoning, the text and the terminal', async () => {
    const s = await thread();
    stack.model.enqueue({ kind: 'reply', reasoning: 'Thinking about a greeting.', text: 'Hello from the scripted model, in chunks.', chunkChars: 7 });
    const result = await client.prompt(s.sessionId, { prompt: text('Say hello') }, undefined, s.clientId);
    assert.equal(result.stopReason, 'end_turn');

    const events = await replayAll(client, s.sessionId);
    assert.deepEqual(
      events.map((e) => e.id),
      events.map((_, i) => i + 1),
      'ids start at 1 and have no gaps',
    );
    assert.equal(joinText(events, 'user_message_chunk'), 'Say hello');
    assert.equal(joinText(events, 'agent_thought_chunk'), 'Thinking about a greeting.');
    assert.equal(joinText(events, 'agent_message_chunk'), 'Hello from the scripted model, in chunks.');
    const terminal = events.at(-1)!;
    assert.equal(terminal.type, 'turn_complete');
    const promptId = (terminal.data as any).promptId;
    assert.equal(typeof promptId, 'string');
    // The session's start announces its slash commands (event 1, no prompt); everything after is the turn's.
    assert.equal((events[0]!.data as any).update?.sessionUpdate, 'available_commands_update');
    for (const e of events.slice(1)) {
      assert.equal(e.promptId, promptId, `${e.type} #${e.id} carries the prompt id`);
      assert.equal(e.originatorClientId, s.clientId, `${e.type} #${e.id} names the client that prompted`);
    }
  });

  test('the session client prompts over its open subscription and takes the result from that same stream', async () => {
    const eventRequests: string[] = [];
    const counting = new DaemonClient({
      baseUrl: stack.daemon.url,
      fetch: (input, init) => {
        const url = String(input instanceof Request ? input.url : input);
        if (url.includes('/events')) eventRequests.push(url);
        return fetch(input, init);
      },
    });
    const s = await thread(counting);
    const log = new EventLog((signal) => s.events({ signal }));
    try {
      stack.model.enqueue({ kind: 'reply', text: 'one stream is enough' });
      const result = await s.prompt({ prompt: text('first') });
      assert.equal(result.stopReason, 'end_turn');
      stack.model.enqueue({ kind: 'reply', text: 'still the same stream' });
      assert.equal((await s.prompt({ prompt: text('second') })).stopReason, 'end_turn');
      // The SDK settles prompt() as it reads the terminal, just before handing it to this iteration.
      await log.waitFor(() => log.ofType('turn_complete').length === 2);
      assert.equal(eventRequests.length, 1, 'no temporary subscription was opened');
    } finally {
      await log.close();
    }
  });

  test('promptNonBlocking answers 202 with a cursor from which a subscription sees the whole turn', async () => {
    const s = await thread();
    await s.prompt({ prompt: text('warm up') }); // the cursor must be mid-stream, not 0
    stack.model.enqueue({ kind: 'reply', text: 'answered after admission' });
    const accepted = await client.promptNonBlocking(s.sessionId, { prompt: text('do it later') }, undefined, s.clientId);
    assert.ok(isNonBlockingAccepted(accepted));
    assert.ok(accepted.lastEventId > 0);
    const log = new EventLog((signal) =>
      client.subscribeEvents(s.sessionId, { lastEventId: accepted.lastEventId, epoch: accepted.eventEpoch, signal }),
    );
    try {
      const terminal = await log.waitFor(terminalOf(accepted.promptId));
      assert.equal(terminal.type, 'turn_complete');
      const turn = log.events.filter((e) => e.id !== undefined);
      assert.equal(turn[0]!.id, accepted.lastEventId + 1, 'the first event after the cursor is the turn’s first');
      assert.equal(joinText(turn, 'user_message_chunk'), 'do it later');
      assert.equal(joinText(turn, 'agent_message_chunk'), 'answered after admission');
      assert.ok(turn.every((e) => e.promptId === accepted.promptId));
      assert.equal(log.ofType('state_resync_required').length, 0, 'the 202 epoch is the stream epoch');
    } finally {
      await log.close();
    }
  });

  test('a stream dropped mid-turn resumes from the last id it saw: no event lost, none repeated', async () => {
    const s = await thread();
    const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
    stack.model.enqueue({ kind: 'reply', text: words, delayMs: 15 });
    const first = new EventLog((signal) => s.events({ signal }));
    const accepted = await s.submitPrompt({ prompt: text('stream slowly') });
    // Drop the connection once a few chunks are through, while the model is still talking.
    await first.waitFor((e) => first.events.filter(update('agent_message_chunk')).length >= 3 || e.type === 'turn_complete');
    await first.close();
    const cut = s.lastEventId!;
    assert.equal(cut, Math.max(...first.events.filter((e) => e.id !== undefined).map((e) => e.id!)));

    const second = new EventLog((signal) => s.events({ signal }));
    try {
      await second.waitFor(terminalOf(accepted.promptId));
      const before = first.events.filter((e) => e.id !== undefined);
      const afterDrop = second.events.filter((e) => e.id !== undefined);
      assert.ok(afterDrop.every((e) => e.id! > cut), 'nothing at or before the cursor came again');
      const ids = [...before, ...afterDrop].map((e) => e.id!);
      assert.deepEqual(ids, ids.map((_, i) => i + 1), 'the two streams together hold every id once, in order');
      assert.equal(joinText([...before, ...afterDrop], 'agent_message_chunk'), words.join(''));
      // And they are the very events the daemon holds.
      const all = await replayAll(client, s.sessionId);
      assert.deepEqual([...before, ...afterDrop], all);
    } finally {
      await second.close();
    }
  });

  test('cancel stops the running prompt: turn_complete says cancelled and the model request is aborted', async () => {
    const s = await thread();
    const log = new EventLog((signal) => s.events({ signal }));
    try {
      stack.model.enqueue({ kind: 'hang', text: 'I will take forever' });
      const running = s.prompt({ prompt: text('take your time') });
      await log.waitFor(update('agent_message_chunk'));
      const [request] = await stack.model.waitForRequests(1, '/chat/completions');
      await s.cancel();
      const result = await running;
      assert.equal(result.stopReason, 'cancelled');
      const closed = await stack.model.waitForClientClose(request!.index);
      assert.equal(closed.clientClosedEarly, true, 'the daemon closed the model request');

      const cancelled = await log.waitFor(ofType('prompt_cancelled'));
      const terminal = await log.waitFor(ofType('turn_complete'));
      assert.ok(cancelled.id! < terminal.id!, 'prompt_cancelled comes before the terminal');
      assert.equal((terminal.data as any).stopReason, 'cancelled');
      assert.equal(typeof (terminal.data as any).promptCancelled?.elapsedMs, 'number');
      assert.equal((await s.status()).hasActivePrompt, false);
    } finally {
      await log.close();
    }
  });

  test('getPendingPrompts lists the running prompt and the two queued behind it; cancel stops only the first', async () => {
    const s = await thread();
    const log = new EventLog((signal) => s.events({ signal }));
    try {
      stack.model.enqueue({ kind: 'hang' }, { kind: 'reply', text: 'second done' }, { kind: 'reply', text: 'third done' });
      const a = await s.submitPrompt({ prompt: text('first') });
      await stack.model.waitForRequests(1, '/chat/completions');
      const b = await s.submitPrompt({ prompt: text('second') });
      const c = await s.submitPrompt({ prompt: text('third') });

      const { pendingPrompts } = await s.getPendingPrompts();
      assert.deepEqual(
        pendingPrompts.map((p) => [p.promptId, p.text, p.state]),
        [
          [a.promptId, 'first', 'running'],
          [b.promptId, 'second', 'queued'],
          [c.promptId, 'third', 'queued'],
        ],
      );
      assert.ok(pendingPrompts.every((p) => p.originatorClientId === s.clientId));
      const added = await log.waitFor(ofType('pending_prompt_added', (d) => d.promptId === c.promptId));
      assert.equal((added.data as any).text, 'third');

      await s.cancel();
      assert.equal(((await log.waitFor(terminalOf(a.promptId))).data as any).stopReason, 'cancelled');
      assert.equal(((await log.waitFor(terminalOf(b.promptId))).data as any).stopReason, 'end_turn');
      assert.equal(((await log.waitFor(terminalOf(c.promptId))).data as any).stopReason, 'end_turn');
      for (const p of [b, c]) {
        const started = await log.waitFor(ofType('pending_prompt_started', (d) => d.promptId === p.promptId));
        const completed = await log.waitFor(ofType('pending_prompt_completed', (d) => d.promptId === p.promptId));
        assert.equal((completed.data as any).state, 'completed');
        assert.ok(started.id! < completed.id!);
      }
      assert.equal(log.events.filter(ofType('pending_prompt_added', (d) => d.promptId === a.promptId)).length, 0);
      assert.deepEqual((await s.getPendingPrompts()).pendingPrompts, []);
    } finally {
      await log.close();
    }
  });

  test('past the queue cap the daemon answers prompt_queue_full, which the SDK raises as DaemonPendingPromptLimitError', async () => {
    const s = await thread();
    stack.model.enqueue({ kind: 'hang' });
    const admitted = [];
    for (let i = 0; i < 5; i++) admitted.push(await client.promptNonBlocking(s.sessionId, { prompt: text(`p${i}`) }));
    const err = await client
      .promptNonBlocking(s.sessionId, { prompt: text('one too many') })
      .then(() => assert.fail('a sixth prompt was admitted'), (e: unknown) => e);
    assert.ok(err instanceof DaemonPendingPromptLimitError);
    assert.equal(err.sessionId, s.sessionId);
    assert.equal(err.limit, 5);
    assert.equal(err.pendingCount, 5);
    await client.closeSession(s.sessionId); // ends the hanging turn and the queue
  });
});
