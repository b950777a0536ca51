import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asKnownDaemonEvent, DaemonSessionClient, reduceDaemonSessionEvents, type DaemonClient } from '@qwen-code/sdk/daemon';
import { EventLog, sdkClient, text, update } from '../support/sdk.js';
import { stackPerSuite, type Stack } from '../support/stack.js';

/**
 * Slash commands (issue 14): a built-in agent's session announces them with
 * `available_commands_update` at its start, as qwen serve does, and a prompt that
 * starts with one is answered by the session without a model request. The official
 * SDK reads the new events (the command list, usage) as known events, without errors.
 */
describe('slash commands and the SDK', { timeout: 60_000 }, () => {
  let stack: Stack;
  let client: DaemonClient;
  stackPerSuite((started) => {
    stack = started;
    client = sdkClient(started);
  });

  test('the command list comes first; /usage and /mode answer without the model; the SDK knows every event', async () => {
    const s = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: stack.daemon.workspace, sessionScope: 'thread' });
    const log = new EventLog((signal) => client.subscribeEvents(s.sessionId, { lastEventId: 0, signal }));
    try {
      const listed = await log.waitFor(update('available_commands_update'));
      const names = (listed.data as any).update.availableCommands.map((c: { name: string }) => c.name);
      assert.deepEqual(names, ['compact', 'usage', 'mode', 'model', 'rewind', 'export']);

      stack.model.enqueue({ kind: 'reply', text: 'hello', usage: { promptTokens: 120, completionTokens: 7, cachedTokens: 0 } });
      assert.equal((await s.prompt({ prompt: text('say hello') })).stopReason, 'end_turn');
      const requestsBefore = stack.model.completions().length;

      assert.equal((await s.prompt({ prompt: text('/usage') })).stopReason, 'end_turn');
      await s.prompt({ prompt: text('/mode yolo') });
      assert.equal(stack.model.completions().length, requestsBefore, 'commands never reach the model');
      const answers = log.events
        .filter(update('agent_message_chunk', (u) => u._meta?.source === 'slash-command'))
        .map((e) => (e.data as any).update.content.text as string);
      assert.match(answers[0]!, /^Session: 1 model request\(s\): 120 input tokens/);
      assert.equal(answers[1], 'Approval mode changed from default to yolo.');
      assert.equal((await stack.daemon.json('GET', `/session/${s.sessionId}/status`)).body.approvalMode, 'yolo');

      await log.waitFor(() => log.ofType('turn_complete').length === 3);
      // Id-less stream-control frames (replay_complete) are Berth's own; every numbered event must be one the SDK knows.
      const unknown = log.events.filter((e) => e.id !== undefined && asKnownDaemonEvent(e) === undefined).map((e) => e.type);
      assert.deepEqual(unknown, [], 'every event is one the SDK knows and accepts');
      const fill = log.events.find(update('usage_update'));
      assert.equal((fill!.data as any).update.used, 120);
      const state = reduceDaemonSessionEvents(log.events);
      assert.equal(state.lastEventId, log.events.at(-1)!.id);
      assert.equal(log.error, undefined);
    } finally {
      await log.close();
    }
  });

  test('an unknown /word is an ordinary prompt for the model', async () => {
    const s = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: stack.daemon.workspace, sessionScope: 'thread' });
    stack.model.enqueue({ kind: 'reply', text: 'no such command here' });
    await s.prompt({ prompt: text('/frobnicate now') });
    const last = stack.model.completions().at(-1)!;
    assert.deepEqual(last.messages.at(-1), { role: 'user', content: '/frobnicate now' });
  });
});
