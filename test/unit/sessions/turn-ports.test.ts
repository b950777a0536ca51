import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AgentDriver, TurnIO } from '../../../src/agents/driver.js';
import type { PublishInput } from '../../../src/events/types.js';
import { silentLogger } from '../../../src/log.js';
import type { InteractionRequest, Resolution } from '../../../src/sessions/interactions.js';
import type { PromptTerminalInput } from '../../../src/sessions/prompt-lane.js';
import type { PromptEntry } from '../../../src/sessions/prompt-queue.js';
import type { SessionTools } from '../../../src/sessions/ports.js';
import { runPrompt, type TurnPorts } from '../../../src/sessions/turn.js';
import type { Policy } from '../../../src/tools/types.js';
import { fakeWorkspace } from '../../support/tools.js';
import { UsageMeter } from '../../../src/sessions/usage.js';
import { MemoryGrantRepository, SessionGrants } from '../../../src/sessions/grants.js';
import { toolDef } from '../../support/turn-io.js';

/**
 * A turn runs on the ports its session lends it, so it can be driven here
 * without a session, a bus or a store.
 */

function entry(): PromptEntry {
  return {
    promptId: 'p-1',
    content: [{ type: 'text', text: 'edit the file' }],
    text: 'edit the file',
    originatorClientId: 'client-a',
    queuedAt: 0,
    deadlineAt: null,
    waited: false,
    state: 'queued',
    settled: false,
  };
}

/** A driver whose one turn makes one call of `workspace_write`, then ends. */
const callingDriver: Pick<AgentDriver, 'runTurn'> = {
  async runTurn(io: TurnIO) {
    await io.callTool({ toolCallId: 'call-1', name: 'workspace_write', args: { path: 'a.txt' } });
    return { stopReason: 'end_turn' };
  },
};

async function ports(options: { ask: Resolution; remembered?: 'allow' | 'reject' }) {
  const published: PublishInput[] = [];
  const asked: InteractionRequest[] = [];
  const grantStore = new MemoryGrantRepository();
  const grants = new SessionGrants(grantStore, 's-1', 'ws-1', { now: () => 1000 });
  if (options.remembered === 'reject') {
    await grants.record({ scope: 'session', keys: ['reject:workspace_write'], choice: 'reject', label: 'workspace_write rejected for this session' });
  }
  if (options.remembered === 'allow') await grants.record({ scope: 'session', keys: ['edit'], choice: 'allow', label: 'all edits allowed for this session' });
  const remembered = { has: async (key: string) => (await grantStore.applying('s-1', 'ws-1')).some((r) => r.key === key && r.choice === 'allow') };
  const ran: string[] = [];
  const terminals: PromptTerminalInput[] = [];
  let startedCalls = 0;
  const tools: SessionTools = {
    definitions: () => [toolDef('workspace_write')],
    async run(call, o) {
      const decision = await o.permission({
        namespace: 'session:s-1',
        callId: call.toolCallId,
        sessionId: 's-1',
        workspace: fakeWorkspace(),
        tool: { ...toolDef(call.name), policy: 'write' },
        args: call.args,
        signal: o.signal,
      });
      if (!decision.allow) return { ok: false, error: { code: 'permission_denied', message: decision.reason, retryable: false } };
      ran.push(call.name);
      return { ok: true, result: { value: 'written' } };
    },
  };
  const turnPorts: TurnPorts = {
    sessionId: 's-1',
    usage: new UsageMeter(),
    clock: { now: () => 1000 },
    log: silentLogger(),
    driver: callingDriver,
    tools,
    prompts: { started: async () => undefined },
    midTurn: { drain: () => [] },
    interactions: {
      ask: async (req) => {
        asked.push(req);
        return options.ask;
      },
    },
    runWorkspace: fakeWorkspace(),
    guard: (): Policy => 'critical',
    mustAsk: (policy) => policy !== 'read',
    grants,
    allowRules: [],
    publish: (input) => void published.push(input),
    settle: (e, terminal) => {
      e.settled = true;
      terminals.push(terminal);
    },
    started: () => void (startedCalls += 1),
  };
  return { turnPorts, published, asked, remembered, ran, terminals, started: () => startedCalls };
}

describe('a turn on its ports', () => {
  test('an allow_always vote runs the call and is remembered for the rest of the session', async () => {
    const p = await ports({ ask: { kind: 'allow_always', outcome: { outcome: 'selected', optionId: 'proceed_always' } } });
    await runPrompt(p.turnPorts, entry());
    assert.equal(p.started(), 1, 'the session is told the prompt started');
    assert.equal(p.asked.length, 1);
    assert.equal(p.asked[0]!.kind, 'permission');
    assert.deepEqual(p.ran, ['workspace_write']);
    assert.equal(await p.remembered.has('edit'), true, '"Allow All Edits" covers every edit of the session');
    assert.deepEqual(
      p.asked[0]!.options!.map((o) => o.optionId),
      ['proceed_once', 'proceed_always', 'cancel', 'reject_always'],
      'an edit is offered qwen\'s edit options',
    );
    assert.deepEqual(p.terminals, [{ stopReason: 'end_turn' }]);
    const updates = p.published.map((e) => (e.data as { update?: { sessionUpdate: string; status?: string } }).update);
    assert.deepEqual(
      updates.map((u) => (u ? `${u.sessionUpdate}${u.status ? `:${u.status}` : ''}` : '')),
      ['user_message_chunk', 'tool_call:pending', 'tool_call_update:in_progress', 'tool_call_update:completed'],
    );
  });

  test('a remembered rejection refuses the call without asking anyone', async () => {
    const p = await ports({ ask: { kind: 'allow_once', outcome: { outcome: 'selected', optionId: 'proceed_once' } }, remembered: 'reject' });
    await runPrompt(p.turnPorts, entry());
    assert.equal(p.asked.length, 0);
    assert.deepEqual(p.ran, []);
    assert.deepEqual(p.terminals, [{ stopReason: 'end_turn' }]);
  });

  test('a prompt already settled (its deadline passed) does not start', async () => {
    const p = await ports({ ask: { kind: 'allow_once', outcome: { outcome: 'selected', optionId: 'proceed_once' } } });
    const settled = { ...entry(), settled: true };
    await runPrompt(p.turnPorts, settled);
    assert.equal(p.started(), 0);
    assert.equal(p.published.length, 0);
  });
});
