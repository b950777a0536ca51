import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stackPerSuite, type Stack } from '../support/stack.js';
import { newSession, type WireEvent } from '../support/session-client.js';
import type { TestDaemon } from '../support/daemon.js';
import { votedTurn } from '../support/voted-turn.js';

/**
 * `approvalMode` on POST /session (spec §5.1, issue 3): plan hides and refuses
 * writes, default asks before write and critical calls, auto-edit asks only
 * before critical ones, yolo never asks. Observed end to end: the tools the
 * scripted model was offered, the permission requests on the stream, and the
 * files on disk.
 */

const WRITE_TOOLS = ['workspace_write', 'workspace_patch', 'workspace_delete', 'workspace_exec', 'workspace_input'];
const READ_TOOLS = ['workspace_info', 'workspace_list', 'workspace_read', 'workspace_poll', 'workspace_stop', 'workspace_ask'];

const write = (path: string, content: string) => ({ name: 'workspace_write', arguments: { path, content, expectedSha256: null } });
const exec = (command: string) => ({ name: 'workspace_exec', arguments: { command } });

interface Turn {
  readonly events: WireEvent[];
  readonly asked: WireEvent[];
  readonly toolResults: WireEvent[];
}

/** Runs one prompt whose model makes `calls` then says done; votes `allow_once` on every request it sees. */
async function runTurn(s: Stack, sessionId: string, calls: object[]): Promise<Turn> {
  const turn = await votedTurn(s.daemon, s.model, sessionId, calls);
  return { events: turn.events, asked: turn.asked, toolResults: turn.settled };
}

const offeredTools = (s: Stack): string[] => (s.model.completions().at(-1)!.tools ?? []).map((t: { function: { name: string } }) => t.function.name);

describe('approval modes (spec §5.1; Berth default asks before every write and critical call)', () => {
  let s: Stack;
  let d: TestDaemon;
  stackPerSuite(
    (stack) => {
      s = stack;
      d = stack.daemon;
    },
    { files: { 'existing.txt': 'old\n' } },
  );

  it('plan hides every write and critical tool from the model and the guard refuses a write it calls anyway', async () => {
    const { sessionId } = await newSession(d, { approvalMode: 'plan' });
    const turn = await runTurn(s, sessionId, [write('plan.txt', 'nope')]);
    const offered = offeredTools(s);
    for (const name of WRITE_TOOLS) assert.ok(!offered.includes(name), `${name} is hidden in plan mode`);
    for (const name of READ_TOOLS) assert.ok(offered.includes(name), `${name} is offered in plan mode`);
    assert.equal(turn.asked.length, 0, 'nothing asks: nothing that could ask may run');
    assert.equal(turn.toolResults.length, 1);
    const refused = turn.toolResults[0]!.data.update;
    assert.equal(refused.status, 'failed');
    assert.equal(refused.rawOutput.error.code, 'policy_denied', JSON.stringify(refused.rawOutput));
    assert.equal(existsSync(join(d.workspace, 'plan.txt')), false);
    // The model was told the call was refused.
    const toolMessage = s.model.completions().at(-1)!.messages.find((m: { role: string }) => m.role === 'tool');
    assert.match(JSON.stringify(toolMessage), /policy_denied/);
  });

  it('default asks before a write and before a critical call, never before a read', async () => {
    const { sessionId } = await newSession(d, { approvalMode: 'default' });
    const turn = await runTurn(s, sessionId, [
      { name: 'workspace_read', arguments: { path: 'existing.txt' } },
      write('default.txt', 'asked first'),
      exec('true'),
    ]);
    assert.deepEqual(
      turn.asked.map((e) => e.data.toolCall._meta.toolName),
      ['workspace_write', 'workspace_exec'],
    );
    // qwen's options per kind of call (docs/client-api.md §9.6): every edit at once, or a command's root in a scope.
    const expected = [
      ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
      ['allow_once', 'allow_always', 'allow_always', 'reject_once', 'reject_always'],
    ];
    turn.asked.forEach((e, i) => {
      assert.equal(typeof e.data.toolCall, 'object');
      assert.deepEqual(
        e.data.options.map((o: { kind: string }) => o.kind),
        expected[i],
      );
      for (const o of e.data.options) assert.ok(o.optionId && o.name);
    });
    assert.deepEqual(turn.toolResults.map((e) => e.data.update.status), ['completed', 'completed', 'completed']);
    assert.equal(readFileSync(join(d.workspace, 'default.txt'), 'utf8'), 'asked first');
  });

  it('a session created without approvalMode runs in default mode and asks before writing', async () => {
    const { sessionId } = await newSession(d);
    assert.equal((await d.json('GET', `/session/${sessionId}/context`)).body.state.modes.currentModeId, 'default');
    const turn = await runTurn(s, sessionId, [write('implicit.txt', 'x')]);
    assert.equal(turn.asked.length, 1);
  });

  it('auto-edit (and qwen’s auto, its alias here) runs a write unasked and still asks before a critical call', async () => {
    for (const mode of ['auto-edit', 'auto']) {
      const { sessionId } = await newSession(d, { approvalMode: mode });
      const turn = await runTurn(s, sessionId, [write(`${mode}.txt`, 'unasked'), exec('true')]);
      assert.deepEqual(turn.asked.map((e) => e.data.toolCall._meta.toolName), ['workspace_exec'], mode);
      assert.equal(readFileSync(join(d.workspace, `${mode}.txt`), 'utf8'), 'unasked');
      assert.deepEqual(turn.toolResults.map((e) => e.data.update.status), ['completed', 'completed']);
    }
  });

  it('yolo asks before nothing: writes and commands run at once', async () => {
    const { sessionId } = await newSession(d, { approvalMode: 'yolo' });
    const turn = await runTurn(s, sessionId, [write('yolo.txt', 'free'), exec('true')]);
    assert.equal(turn.asked.length, 0);
    assert.equal(turn.events.filter((e) => e.type === 'permission_request').length, 0);
    assert.equal(readFileSync(join(d.workspace, 'yolo.txt'), 'utf8'), 'free');
    const execResult = turn.toolResults[1]!.data.update;
    assert.equal(execResult.status, 'completed');
    assert.match(execResult.rawOutput.commandId, /^[0-9a-f-]{36}$/);
  });
});
