import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DaemonSessionClient, asKnownDaemonEvent, reduceDaemonSessionEvents, type DaemonClient } from '@qwen-code/sdk/daemon';
import { TEST_AGENT_ID, withAgents } from '../support/acp-stack.js';
import { agentPids } from '../support/agent-pids.js';
import { until } from '../support/module.js';
import { EventLog, ofType, sdkClient, text, update } from '../support/sdk.js';
import { stackPerSuite, type Stack } from '../support/stack.js';

/**
 * Issue 12 acceptance: the official `@qwen-code/sdk` DaemonClient drives an
 * external-agent session unchanged. It picks the agent by picking one of its
 * models (`<agentId>/<modelId>`), prompts, streams, votes and closes.
 */
describe('the official SDK drives an external-agent session', { timeout: 120_000 }, () => {
  let stack: Stack;
  let client: DaemonClient;
  stackPerSuite((started) => {
    stack = started;
    client = sdkClient(started);
  }, withAgents());

  test('creates the session on <agentId>/<modelId>, prompts, streams, votes on a permission and closes', async () => {
    const caps = (await client.capabilities()) as unknown as { modelServices: string[] };
    assert.ok(caps.modelServices.includes(TEST_AGENT_ID), JSON.stringify(caps.modelServices));

    const s = await DaemonSessionClient.createOrAttach(client, {
      workspaceCwd: stack.daemon.workspace,
      sessionScope: 'thread',
      modelServiceId: `${TEST_AGENT_ID}/smart`,
    });
    assert.equal(s.modelApplied, true);
    const log = new EventLog((signal) => s.events({ signal }));
    try {
      // The model the SDK asked for is the agent's current one.
      const asked = await s.prompt({ prompt: text('model?') });
      assert.equal(asked.stopReason, 'end_turn');
      await log.waitFor(update('agent_message_chunk', (u) => u.content?.text === 'model smart'));

      // The agent's permission request reaches the SDK's reducer with the agent's options; the SDK's vote lets the write happen.
      const writing = s.prompt({ prompt: text('write notes/sdk.txt written for the sdk') });
      const request = await log.waitFor(ofType('permission_request'));
      assert.ok(asKnownDaemonEvent(request), 'the SDK guard accepts the agent permission request');
      const data = request.data as { requestId: string; options: { optionId: string }[]; toolCall: { kind: string } };
      assert.deepEqual(data.options.map((o) => o.optionId), ['yes', 'yes-always', 'no']);
      assert.equal(data.toolCall.kind, 'edit');
      assert.deepEqual(Object.keys(reduceDaemonSessionEvents(log.events).pendingPermissions), [data.requestId]);
      assert.equal(existsSync(join(stack.daemon.workspace, 'notes/sdk.txt')), false, 'nothing is written before the vote');
      assert.equal(await s.respondToSessionPermission(data.requestId, { outcome: { outcome: 'selected', optionId: 'yes' } }), true);
      assert.equal((await writing).stopReason, 'end_turn');
      assert.equal(readFileSync(join(stack.daemon.workspace, 'notes/sdk.txt'), 'utf8'), 'written for the sdk');
      await log.waitFor(update('tool_call_update', (u) => u.status === 'completed'));
      await log.waitFor(update('agent_message_chunk', (u) => u.content?.text === 'written'));
      const state = reduceDaemonSessionEvents(log.events);
      assert.deepEqual(state.pendingPermissions, {});
      assert.equal(state.lastTurnComplete?.stopReason, 'end_turn');
      assert.equal(state.unmatchedPermissionResolutionCount, 0);

      await s.close();
      await log.waitFor(ofType('session_closed'));
      await log.ended;
      assert.equal(reduceDaemonSessionEvents(log.events).alive, false);
      // Its last session gone, the agent process goes too.
      await until(() => agentPids(stack.daemon.home, 'acp-agent.mjs').length === 0, 'the agent process stopped');
    } finally {
      await log.close();
    }
  });
});
