import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DaemonClient } from '@qwen-code/sdk/daemon';
import type { ScriptedToolCall } from '../../src/devtools/scripted-model/index.js';
import {
  connectedOwnerPerSuite,
  remoteSession,
  runTurn,
  scriptPlans,
  type GatewayHost,
  type OwnerProcess,
  type SeenResult,
  type TempOwnerDirs,
  type TurnPlans,
} from '../support/gateway.js';

/**
 * Issue 5 acceptance, the plain flows: B (`berth serve`, in this process, with
 * the scripted model over HTTP) hosts a session on a remote workspace; A
 * (`berth connect`, a real child process) dialled in and runs the session's
 * tool calls on its own project.
 */
describe('a session on B works on A’s project through the gateway channel', { timeout: 120_000 }, () => {
  let host: GatewayHost;
  let dirs: TempOwnerDirs;
  let owner: OwnerProcess;

  connectedOwnerPerSuite({ 'src.txt': 'alpha beta\n', 'AGENTS.md': 'Be brief.\n' }, (pair) => ({ host, dirs, owner } = pair));

  test('capabilities show the remote workspace connected while its owner holds a channel', async () => {
    const caps = await host.b.json('GET', '/capabilities');
    const remote = caps.body.workspaces.find((w: { id: string }) => w.id === 'proj-a');
    assert.equal(remote.location, 'remote');
    assert.equal(remote.channel.state, 'connected');
    assert.ok(remote.channel.channels >= 1);
    const local = caps.body.workspaces.find((w: { location: string }) => w.location === 'local');
    assert.equal(local.channel, undefined, 'a local workspace has no channel');
  });

  test('reads, writes, patches, runs a command and polls its output on the owner’s disk', async () => {
    const last = (seen: SeenResult[]) => seen[seen.length - 1];
    const plans: TurnPlans = new Map([
      [
        'work on the project',
        (seen) => {
          if (seen.length === 0) return [call('workspace_info', {}), call('workspace_read', { path: 'src.txt' })];
          if (seen.length === 2) {
            const sha = seen[1]!.json.sha256;
            return [
              call('workspace_patch', { path: 'src.txt', oldText: 'alpha', newText: 'gamma', expectedSha256: sha }),
              call('workspace_write', { path: 'notes/new.md', content: 'written by B\n', expectedSha256: null }),
              call('workspace_exec', { command: 'cat src.txt > copy.txt && echo ran-on-owner' }),
            ];
          }
          const lastResult = last(seen)!.json;
          if (lastResult?.running === false) return null;
          const commandId = seen[4]!.json.commandId;
          return [call('workspace_poll', { commandId })];
        },
      ],
    ]);
    scriptPlans(host.stack.model, plans);
    const sessionId = await remoteSession(host.b);
    const turn = await runTurn(host.b, sessionId, 'work on the project');

    assert.equal(turn.terminal.type, 'turn_complete');
    const failed = turn.calls.filter((c) => c.status !== 'completed');
    assert.deepEqual(failed, [], 'every call completed');
    const byTool = new Map(turn.calls.map((c) => [c.tool, c]));
    const info = byTool.get('workspace_info')!.rawOutput;
    assert.equal(info.project.workspaceId, host.workspaceId, 'the project is named by its workspace id');
    assert.equal(info.project.name, dirs.project.split('/').pop());
    assert.equal(JSON.stringify(info).includes(dirs.project), false, 'the owner’s absolute path never reaches B');
    assert.deepEqual(info.instructionFiles, ['AGENTS.md']);
    assert.equal(byTool.get('workspace_read')!.rawOutput.content, 'alpha beta\n');

    assert.equal(readFileSync(join(dirs.project, 'src.txt'), 'utf8'), 'gamma beta\n');
    assert.equal(readFileSync(join(dirs.project, 'notes/new.md'), 'utf8'), 'written by B\n');
    assert.equal(readFileSync(join(dirs.project, 'copy.txt'), 'utf8'), 'gamma beta\n');
    const polls = turn.calls.filter((c) => c.tool === 'workspace_poll');
    const finalPoll = polls[polls.length - 1]!.rawOutput;
    assert.equal(finalPoll.running, false);
    assert.equal(finalPoll.exitCode, 0);
    assert.match(polls.map((p) => p.rawOutput.output).join(''), /ran-on-owner/);

    const short = sessionId.slice(0, 8);
    for (const tool of ['workspace_info', 'workspace_read', 'workspace_patch', 'workspace_write', 'workspace_exec', 'workspace_poll']) {
      // A prints its status line after it answered B, so the line may trail the turn's end.
      await owner.waitForLines(new RegExp(`${tool} · session ${short} · ok`));
    }
  });

  test('an image read on A reaches the agent on B as image content', async () => {
    writeFileSync(join(dirs.project, 'dot.png'), Buffer.from(ONE_PIXEL_PNG, 'base64'));
    scriptPlans(host.stack.model, new Map([['look at the dot', (seen: SeenResult[]) => (seen.length === 0 ? [call('workspace_image', { path: 'dot.png' })] : null)]]));
    const sessionId = await remoteSession(host.b);
    const turn = await runTurn(host.b, sessionId, 'look at the dot');
    const image = turn.calls.find((c) => c.tool === 'workspace_image')!;
    assert.equal(image.status, 'completed');
    assert.equal(image.rawOutput.mimeType, 'image/png');
    const update = turn.events
      .map((e) => (e.data as any)?.update)
      .find((u) => u?.sessionUpdate === 'tool_call_update' && u.status === 'completed' && u._meta?.toolName === 'workspace_image');
    assert.deepEqual(update.content, [{ type: 'content', content: { type: 'image', data: ONE_PIXEL_PNG, mimeType: 'image/png' } }]);
    const lastRequest = host.stack.model.requests[host.stack.model.requests.length - 1]!.body;
    assert.ok(JSON.stringify(lastRequest.messages).includes(ONE_PIXEL_PNG), 'the model was shown the picture');
  });

  test('B’s permission rules apply before anything is sent: a rejected write never reaches A, an allowed one does', async () => {
    scriptPlans(
      host.stack.model,
      new Map([
        [
          'two writes',
          (seen: SeenResult[]) =>
            seen.length < 2 ? [call('workspace_write', { path: seen.length === 0 ? 'rejected.txt' : 'allowed.txt', content: 'x', expectedSha256: null })] : null,
        ],
      ]),
    );
    const sessionId = await remoteSession(host.b, host.workspaceId, 'default');
    const turn = runTurn(host.b, sessionId, 'two writes');
    const client = new DaemonClient({ baseUrl: host.b.url });
    const controller = new AbortController();
    const votes = ['cancel', 'proceed_once'];
    for await (const e of client.subscribeEvents(sessionId, { signal: controller.signal, lastEventId: 0 })) {
      if (e.type !== 'permission_request') continue;
      const { requestId, toolCall } = e.data as any;
      assert.equal(owner.stderr().includes(`session ${sessionId.slice(0, 8)}`), false, 'A has seen nothing while B asks');
      assert.equal(toolCall.rawInput.path, votes.length === 2 ? 'rejected.txt' : 'allowed.txt');
      const optionId = votes.shift()!;
      const voted = await host.b.json('POST', `/session/${sessionId}/permission/${requestId}`, { outcome: { outcome: 'selected', optionId } });
      assert.equal(voted.status, 200);
      if (votes.length === 0) break;
    }
    controller.abort();
    const settled = await turn;
    assert.deepEqual(
      settled.calls.map((c) => c.code ?? c.status),
      ['permission_rejected', 'completed'],
    );
    assert.equal(existsSync(join(dirs.project, 'rejected.txt')), false);
    assert.equal(readFileSync(join(dirs.project, 'allowed.txt'), 'utf8'), 'x');
    // A prints the allowed write's line after answering B; the rejected write, which came first, would be printed before it.
    const writes = new RegExp(`workspace_write · session ${sessionId.slice(0, 8)}`);
    await owner.waitForLines(writes);
    assert.equal(owner.stderr().split('\n').filter((l) => writes.test(l)).length, 1, 'A saw only the allowed write');
  });

  test('B’s guard refuses a plan-mode session’s write before anything is sent to A', async () => {
    scriptPlans(
      host.stack.model,
      new Map([['try to write', (seen: SeenResult[]) => (seen.length === 0 ? [call('workspace_write', { path: 'blocked.txt', content: 'x', expectedSha256: null })] : null)]]),
    );
    const sessionId = await remoteSession(host.b, host.workspaceId, 'plan');
    const turn = await runTurn(host.b, sessionId, 'try to write');
    assert.equal(turn.calls.length, 1);
    assert.equal(turn.calls[0]!.code, 'policy_denied');
    assert.equal(existsSync(join(dirs.project, 'blocked.txt')), false);
    assert.equal(owner.stderr().includes(`session ${sessionId.slice(0, 8)}`), false, 'A never saw a call of that session');
  });
});

const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

let counter = 0;
function call(name: string, args: Record<string, unknown>): ScriptedToolCall {
  counter += 1;
  return { id: `call_${name}_${counter}`, name, arguments: args };
}
