import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestDaemon } from '../support/daemon.js';
import { newSession } from '../support/session-client.js';
import { votedTurn } from '../support/voted-turn.js';
import { stackPerSuite, type Stack } from '../support/stack.js';

/**
 * `workspace_stop` is a read-level tool (the seed's `readOnlyHint`): it is
 * never asked about, and it reaches only the commands its own session
 * started. Observed over the client API with the scripted model.
 */

interface Turn {
  readonly asked: string[];
  /** The settled tool calls: status and raw output, in order. */
  readonly results: { status: string; rawOutput: any }[];
}

/** One prompt whose model makes `calls` then says done; every permission request is allowed once. */
async function runTurn(s: Stack, sessionId: string, calls: object[]): Promise<Turn> {
  const turn = await votedTurn(s.daemon, s.model, sessionId, calls);
  return {
    asked: turn.asked.map((e) => e.data.toolCall._meta.toolName as string),
    results: turn.settled.map((e) => ({ status: e.data.update.status as string, rawOutput: e.data.update.rawOutput })),
  };
}

describe('workspace_stop: a read-level tool over the session’s own commands', () => {
  let s: Stack;
  let d: TestDaemon;
  stackPerSuite((stack) => {
    s = stack;
    d = stack.daemon;
  });

  it('another session cannot stop a command, and the session that started it stops it without being asked', async () => {
    const owner = (await newSession(d, { approvalMode: 'default' })).sessionId;
    const stranger = (await newSession(d, { approvalMode: 'default' })).sessionId;
    const started = await runTurn(s, owner, [{ name: 'workspace_exec', arguments: { command: 'sleep 60', waitMs: 0 } }]);
    assert.deepEqual(started.asked, ['workspace_exec'], 'starting a command is critical and asked about');
    const commandId = started.results[0]!.rawOutput.commandId as string;
    assert.match(commandId, /^[0-9a-f-]{36}$/);

    const foreign = await runTurn(s, stranger, [{ name: 'workspace_stop', arguments: { commandId } }]);
    assert.deepEqual(foreign.asked, [], 'a read-level tool is never asked about');
    assert.equal(foreign.results[0]!.status, 'failed');
    assert.equal(foreign.results[0]!.rawOutput.error.code, 'unknown_command');

    const polled = await runTurn(s, owner, [{ name: 'workspace_poll', arguments: { commandId } }]);
    assert.equal(polled.results[0]!.rawOutput.running, true, 'the stranger’s stop left the command running');

    const stopped = await runTurn(s, owner, [{ name: 'workspace_stop', arguments: { commandId } }]);
    assert.deepEqual(stopped.asked, [], 'stopping its own command is not asked about either');
    assert.equal(stopped.results[0]!.status, 'completed');
    assert.equal(stopped.results[0]!.rawOutput.wasRunning, true);
    assert.equal(stopped.results[0]!.rawOutput.running, false);
  });

  it('is offered in plan mode, where a write is not', async () => {
    const { sessionId } = await newSession(d, { approvalMode: 'plan' });
    await runTurn(s, sessionId, [{ name: 'workspace_info', arguments: {} }]);
    const offered = (s.model.completions().at(-1)!.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
    assert.ok(offered.includes('workspace_stop'));
    assert.ok(!offered.includes('workspace_write'));
  });
});
