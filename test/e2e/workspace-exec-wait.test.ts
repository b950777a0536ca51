import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventReader, newSession, submit } from '../support/session-client.js';
import { stackPerSuite, type Stack } from '../support/stack.js';

/**
 * `workspace_exec` waits for a short command (docs/workspace-tools.md `waitMs`), so its output
 * reaches the model in the same step; a longer one answers with its id and is polled.
 * Observed with the scripted model over real HTTP.
 */

/** The tool results the model was sent in its chat request `n` (0-based), parsed, in order. */
function toolResults(s: Stack, n: number): any[] {
  const request = s.model.completions()[n]!;
  return (request.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === 'tool')
    .map((m) => JSON.parse(String(m.content)));
}

async function runPrompt(s: Stack, sessionId: string): Promise<void> {
  const events = await EventReader.open(s.daemon, sessionId);
  const submitted = await submit(s.daemon, sessionId, 'run it');
  assert.equal(submitted.status, 202);
  const terminal = await events.terminal(submitted.body.promptId);
  events.close();
  assert.equal(terminal.type, 'turn_complete', JSON.stringify(terminal.data));
}

describe('workspace_exec with a wait', () => {
  let s: Stack;
  stackPerSuite((stack) => {
    s = stack;
  });

  it('a command that finishes in 50 ms reaches the model in one step, with its exit code, output and id', async () => {
    const { sessionId } = await newSession(s.daemon, { approvalMode: 'yolo' });
    s.model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'workspace_exec', arguments: { command: 'sleep 0.05; echo fifty; exit 3' } }] },
      { kind: 'reply', text: 'done' },
    );
    await runPrompt(s, sessionId);
    assert.equal(s.model.completions().length, 2, 'one request for the call, one with its result: no poll');
    const [result] = toolResults(s, 1);
    assert.equal(result.running, false);
    assert.equal(result.exitCode, 3);
    assert.equal(result.output, 'fifty\n');
    assert.match(result.commandId, /^[0-9a-f-]{36}$/);
  });

  it('a 3 s command with a 1 s wait answers running and is read with workspace_poll', async () => {
    const { sessionId } = await newSession(s.daemon, { approvalMode: 'yolo' });
    s.model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'workspace_exec', arguments: { command: 'echo early; sleep 3; echo late', waitMs: 1000 } }] },
      {
        kind: 'reply',
        toolCalls: [{ name: 'workspace_poll', arguments: { commandId: { $fromLastToolResult: 'commandId' }, waitMs: 60_000 } }],
      },
      { kind: 'reply', text: 'done' },
    );
    await runPrompt(s, sessionId);
    assert.equal(s.model.completions().length, 3);
    const [started] = toolResults(s, 1);
    assert.equal(started.running, true, 'still running after the 1 s wait');
    assert.equal(started.exitCode, null);
    assert.equal(started.output, 'early\n', 'what it printed so far comes back');
    const [, polled] = toolResults(s, 2);
    assert.equal(polled.commandId, started.commandId);
    assert.equal(polled.running, false);
    assert.equal(polled.exitCode, 0);
    assert.equal(polled.output, 'early\nlate\n');
  });

  it('a wait of 0 keeps the seed answer: the id at once, nothing else', async () => {
    const { sessionId } = await newSession(s.daemon, { approvalMode: 'yolo' });
    s.model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'workspace_exec', arguments: { command: 'echo quick', waitMs: 0 } }] },
      { kind: 'reply', text: 'done' },
    );
    await runPrompt(s, sessionId);
    const [result] = toolResults(s, 1);
    assert.deepEqual(Object.keys(result).sort(), ['commandId', 'cwd', 'running', 'timeoutMs']);
    assert.equal(result.running, true);
  });
});
