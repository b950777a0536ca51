import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  DaemonSessionClient,
  asKnownDaemonEvent,
  reduceDaemonSessionEvents,
  type DaemonClient,
  type DaemonEvent,
} from '@qwen-code/sdk/daemon';
import type { ScriptStep } from '../../src/devtools/scripted-model/index.js';
import { stackPerSuite, type Stack } from '../support/stack.js';
import { EventLog, ofType, sdkClient, text, update } from '../support/sdk.js';

/**
 * Issue 3 acceptance, permission half: in the default approval mode every
 * write asks first; votes through the SDK decide whether the file is written,
 * and what the model is told.
 */

const writeCall = (path: string, content: string): ScriptStep => ({
  kind: 'reply',
  reasoning: 'I will create the file.',
  toolCalls: [{ name: 'workspace_write', arguments: { path, content, expectedSha256: null } }],
});
const done: ScriptStep = { kind: 'reply', text: 'Done writing the file.' };

const optionOf = (request: DaemonEvent, kind: string): string => {
  const option = (request.data as any).options.find((o: { kind: string }) => o.kind === kind);
  assert.ok(option, `the request offers a ${kind} option`);
  return option.optionId;
};

/** The `tool` messages the scripted model received in its latest chat request. */
function toolMessagesSeen(stack: Stack): string[] {
  const last = stack.model.completions().at(-1)!;
  return (last.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === 'tool')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

describe('the official SDK answers permission requests', { timeout: 60_000 }, () => {
  let stack: Stack;
  let client: DaemonClient;
  const thread = () => DaemonSessionClient.createOrAttach(client, { workspaceCwd: stack.daemon.workspace, sessionScope: 'thread' });
  const file = (rel: string) => join(stack.daemon.workspace, rel);

  stackPerSuite((started) => {
    stack = started;
    client = sdkClient(started);
  });

  test('allow once: the request reaches the reducer, the vote lets the write happen, the request leaves the reducer', async () => {
    const s = await thread();
    const log = new EventLog((signal) => s.events({ signal }));
    try {
      stack.model.enqueue(writeCall('notes/approved.txt', 'approved content\n'), done);
      const result = s.prompt({ prompt: text('Create notes/approved.txt') });
      const request = await log.waitFor(ofType('permission_request'));
      assert.ok(asKnownDaemonEvent(request), 'the SDK guard accepts the request');
      const data = request.data as any;
      assert.equal(data.sessionId, s.sessionId);
      assert.equal(data.toolCall.kind, 'edit');
      assert.deepEqual(data.toolCall.locations, [{ path: file('notes/approved.txt') }]);
      assert.deepEqual(
        data.options.map((o: { kind: string }) => o.kind).sort(),
        ['allow_always', 'allow_once', 'reject_always', 'reject_once'],
      );
      assert.equal(existsSync(file('notes/approved.txt')), false, 'nothing is written before the vote');

      let state = reduceDaemonSessionEvents(log.events);
      assert.deepEqual(Object.keys(state.pendingPermissions), [data.requestId]);
      const status = await s.status();
      assert.equal(status.isWaitingForPermission, true);
      assert.equal(status.pendingInteractions?.[0]?.requestId, data.requestId);

      const vote = { outcome: { outcome: 'selected' as const, optionId: optionOf(request, 'allow_once') } };
      assert.equal(await s.respondToSessionPermission(data.requestId, vote), true);
      assert.equal((await result).stopReason, 'end_turn');
      assert.equal(readFileSync(file('notes/approved.txt'), 'utf8'), 'approved content\n');

      const resolved = await log.waitFor(ofType('permission_resolved'));
      assert.deepEqual((resolved.data as any).outcome, vote.outcome);
      assert.equal((resolved.data as any).voterClientId, s.clientId);
      const completed = await log.waitFor(update('tool_call_update', (u) => u.status === 'completed'));
      assert.equal((completed.data as any).update.toolCallId, data.toolCall.toolCallId);
      await log.waitFor(ofType('turn_complete'));
      state = reduceDaemonSessionEvents(log.events);
      assert.deepEqual(state.pendingPermissions, {});
      assert.equal(state.lastTurnComplete?.stopReason, 'end_turn');
      assert.equal(state.unmatchedPermissionResolutionCount, 0);

      // First vote won: later ones (either route) are 404 → false, and say so on the stream.
      assert.equal(await s.respondToSessionPermission(data.requestId, vote), false);
      assert.equal(await s.respondToPermission(data.requestId, vote), false);
      await log.waitFor(ofType('permission_already_resolved'));
    } finally {
      await log.close();
    }
  });

  test('reject once: the file is not written and the model is told the call was rejected', async () => {
    const s = await thread();
    const log = new EventLog((signal) => s.events({ signal }));
    try {
      stack.model.enqueue(writeCall('notes/rejected.txt', 'never written\n'), done);
      const result = s.prompt({ prompt: text('Create notes/rejected.txt') });
      const request = await log.waitFor(ofType('permission_request'));
      const requestId = (request.data as any).requestId;
      const vote = { outcome: { outcome: 'selected' as const, optionId: optionOf(request, 'reject_once') } };
      assert.equal(await s.respondToSessionPermission(requestId, vote), true);
      assert.equal((await result).stopReason, 'end_turn');
      assert.equal(existsSync(file('notes/rejected.txt')), false);

      const failed = await log.waitFor(update('tool_call_update', (u) => u.status === 'failed'));
      assert.equal((failed.data as any).update.toolCallId, (request.data as any).toolCall.toolCallId);
      // Berth answers the model with the refusal (qwen ends the turn instead); the second request carries it.
      assert.equal(stack.model.completions().length, 2);
      const [toolMessage] = toolMessagesSeen(stack);
      assert.match(toolMessage ?? '', /permission_rejected/);
      assert.deepEqual(reduceDaemonSessionEvents(log.events).pendingPermissions, {});
    } finally {
      await log.close();
    }
  });

  test('allow always is remembered for the session: the next write runs without asking', async () => {
    const s = await thread();
    const log = new EventLog((signal) => s.events({ signal }));
    try {
      stack.model.enqueue(writeCall('notes/one.txt', 'one\n'), done, writeCall('notes/two.txt', 'two\n'), done);
      const first = s.prompt({ prompt: text('Create notes/one.txt') });
      const request = await log.waitFor(ofType('permission_request'));
      const vote = { outcome: { outcome: 'selected' as const, optionId: optionOf(request, 'allow_always') } };
      // The legacy route finds the session by the request id.
      assert.equal(await client.respondToPermission((request.data as any).requestId, vote), true);
      assert.equal((await first).stopReason, 'end_turn');

      assert.equal((await s.prompt({ prompt: text('Create notes/two.txt') })).stopReason, 'end_turn');
      assert.equal(readFileSync(file('notes/one.txt'), 'utf8'), 'one\n');
      assert.equal(readFileSync(file('notes/two.txt'), 'utf8'), 'two\n');
      await log.waitFor(() => log.ofType('turn_complete').length === 2);
      assert.equal(log.ofType('permission_request').length, 1, 'only the first write asked');

      // Another session of the same workspace has not been told anything: it asks again.
      const other = await thread();
      const otherLog = new EventLog((signal) => other.events({ signal }));
      try {
        stack.model.enqueue(writeCall('notes/three.txt', 'three\n'), done);
        const third = other.prompt({ prompt: text('Create notes/three.txt') });
        const ask = await otherLog.waitFor(ofType('permission_request'));
        await other.respondToSessionPermission((ask.data as any).requestId, { outcome: { outcome: 'cancelled' } });
        assert.equal((await third).stopReason, 'end_turn');
        assert.equal(existsSync(file('notes/three.txt')), false);
      } finally {
        await otherLog.close();
      }
    } finally {
      await log.close();
    }
  });

  test('cancel resolves a pending request as cancelled: nothing is written and the reducer forgets the request', async () => {
    const s = await thread();
    const log = new EventLog((signal) => s.events({ signal }));
    try {
      stack.model.enqueue(writeCall('notes/cancelled.txt', 'never\n'), done);
      const result = s.prompt({ prompt: text('Create notes/cancelled.txt') });
      const request = await log.waitFor(ofType('permission_request'));
      await s.cancel();
      assert.equal((await result).stopReason, 'cancelled');
      const resolved = await log.waitFor(ofType('permission_resolved'));
      assert.equal((resolved.data as any).requestId, (request.data as any).requestId);
      assert.deepEqual((resolved.data as any).outcome, { outcome: 'cancelled' });
      await log.waitFor(ofType('turn_complete'));
      const state = reduceDaemonSessionEvents(log.events);
      assert.deepEqual(state.pendingPermissions, {});
      assert.equal(state.lastTurnComplete?.stopReason, 'cancelled');
      assert.equal(existsSync(file('notes/cancelled.txt')), false);
      assert.equal(stack.model.completions().length, 1, 'the model was not asked again');
      assert.equal(await s.respondToSessionPermission((request.data as any).requestId, { outcome: { outcome: 'cancelled' } }), false);
    } finally {
      await log.close();
    }
  });

  test('workspace_ask is a user_question the SDK answers with `answers`; the model gets the answer', async () => {
    const s = await thread();
    const log = new EventLog((signal) => s.events({ signal }));
    try {
      stack.model.enqueue(
        { kind: 'reply', toolCalls: [{ name: 'workspace_ask', arguments: { question: 'Which colour should the button be?' } }] },
        { kind: 'reply', text: 'Blue it is.' },
      );
      const result = s.prompt({ prompt: text('Ask me something') });
      const request = await log.waitFor(ofType('permission_request'));
      const data = request.data as any;
      assert.equal(data.toolCall._meta.interactionKind, 'user_question');
      assert.equal(data.toolCall.rawInput.question, 'Which colour should the button be?');
      const status = await s.status();
      assert.equal(status.isWaitingForUserQuestion, true);
      assert.equal(status.pendingInteractions?.[0]?.kind, 'user_question');

      const vote = { outcome: { outcome: 'selected' as const, optionId: optionOf(request, 'allow_once') }, answers: { '0': 'Blue' } };
      assert.equal(await s.respondToSessionPermission(data.requestId, vote), true);
      assert.equal((await result).stopReason, 'end_turn');
      assert.match(toolMessagesSeen(stack)[0] ?? '', /Blue/);
    } finally {
      await log.close();
    }
  });

  test('a session waiting for a vote does not hold up another session', async () => {
    const waiting = await thread();
    const log = new EventLog((signal) => waiting.events({ signal }));
    try {
      stack.model.enqueue(writeCall('notes/later.txt', 'later\n'));
      const pending = waiting.prompt({ prompt: text('Create notes/later.txt') });
      const request = await log.waitFor(ofType('permission_request'));

      const busy = await thread();
      stack.model.enqueue({ kind: 'reply', text: 'I am not waiting for anyone.' });
      assert.equal((await busy.prompt({ prompt: text('hello') })).stopReason, 'end_turn');
      assert.equal((await waiting.status()).isWaitingForPermission, true);

      stack.model.enqueue(done);
      const vote = { outcome: { outcome: 'selected' as const, optionId: optionOf(request, 'allow_once') } };
      await waiting.respondToSessionPermission((request.data as any).requestId, vote);
      assert.equal((await pending).stopReason, 'end_turn');
    } finally {
      await log.close();
    }
  });
});
