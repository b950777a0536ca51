import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { remoteStandIn } from '../../src/agents/acp/launch.js';
import { startScriptedModel, type ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { AGENT_BOUNDS } from '../support/acp-stack.js';
import { channelToken, INTENTION, ownerDirs, spawnOwner, WORKSPACE_ID, type OwnerProcess, type TempOwnerDirs } from '../support/gateway.js';
import { QWEN_AGENT_ID, qwenAgentSpec, qwenEntry, writeQwenSettings } from '../support/qwen-agent.js';
import { EventReader, newSession, submit } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';
import { tempDir } from '../support/tmp.js';
import { ChannelProxy } from '../support/ws-proxy.js';

/**
 * Issue 12 acceptance, a remote workspace: a session on host B with the real
 * `qwen --acp` as its agent writes a file in owner A's project through the
 * gateway channel, and A killed after the write but before B has its result
 * never writes it again — the restarted A answers B's resend from its receipt.
 */
describe('qwen --acp on a remote workspace', { timeout: 600_000 }, () => {
  let agentModel: ScriptedModel;
  let home: string;
  let stack: Stack;
  let dirs: TempOwnerDirs;
  let proxy: ChannelProxy;
  let token: string;
  const owners: OwnerProcess[] = [];
  // A restarted A dials with the same token: B sends a call again only to channels of the token it went out under.
  const startOwner = async () => {
    const owner = spawnOwner({ url: proxy.url, token, project: dirs.project, home: dirs.home, args: ['--approve', 'critical'] });
    owners.push(owner);
    await owner.waitForLines(/channel ready/);
    return owner;
  };

  before(async () => {
    const entry = await qwenEntry();
    agentModel = await startScriptedModel({ port: 0 });
    home = tempDir('berth-home-');
    writeQwenSettings(home, agentModel.url);
    stack = await startStack({
      home,
      config: {
        remoteWorkspaces: [WORKSPACE_ID],
        remoteIntentions: { [WORKSPACE_ID]: INTENTION },
        channelWaitMs: 120_000,
        agents: { agents: [qwenAgentSpec(entry, agentModel.url)], defaultAgent: null, startTimeoutMs: 120_000, memoryMb: null, ...AGENT_BOUNDS },
      },
    });
    dirs = ownerDirs({ 'README.md': 'the owner project\n' });
    proxy = await ChannelProxy.start(stack.daemon.url);
    token = await channelToken(stack.daemon);
  });
  after(async () => {
    for (const owner of owners) await owner.kill('SIGKILL');
    await proxy?.close();
    await stack?.close();
    await agentModel?.close();
    dirs?.remove();
  });

  it('writes in A’s project through the channel, and a killed A never writes it twice', async () => {
    const first = await startOwner();
    // qwen works on B in a stand-in folder; its fs/* requests are mapped onto A's project.
    const standIn = remoteStandIn(home, QWEN_AGENT_ID, WORKSPACE_ID);
    agentModel.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'write_file', arguments: { file_path: join(standIn, 'notes', 'qwen.txt'), content: 'written by qwen\n' } }] },
      { kind: 'reply', text: 'Done.' },
    );
    // The write's result is lost on its way to B and A dies right after: the effect happened, B does not know it.
    let killed: Promise<unknown> | undefined;
    proxy.judge = (frame) => {
      if (killed === undefined && frame.direction === 'toServer' && frame.text?.includes('"type":"result"')) {
        const result = JSON.parse(JSON.parse(frame.text).result);
        if (typeof result.created === 'boolean') {
          killed = first.kill('SIGKILL');
          return 'drop-and-cut';
        }
      }
      return 'forward';
    };

    const { sessionId } = await newSession(stack.daemon, { cwd: WORKSPACE_ID, approvalMode: 'yolo', modelServiceId: QWEN_AGENT_ID });
    const events = await EventReader.open(stack.daemon, sessionId);
    const res = await submit(stack.daemon, sessionId, 'Create notes/qwen.txt');
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await waitFor(() => killed !== undefined, 'A was killed after writing');
    await killed;
    const second = await startOwner();
    const terminal = await events.terminal(res.body.promptId);
    assert.equal(terminal.type, 'turn_complete', JSON.stringify(terminal.data));

    assert.equal(readFileSync(join(dirs.project, 'notes', 'qwen.txt'), 'utf8'), 'written by qwen\n');
    const short = sessionId.slice(0, 8);
    const count = (owner: OwnerProcess, what: string) => owner.stderr().match(new RegExp(`workspace_write · session ${short} · ${what}`, 'g'))?.length ?? 0;
    // The file is there and the restarted A did not write it: the first A did. Its own `ok` line may be lost,
    // since A prints a call's status line after the result has left, and this A is killed at that moment.
    // The restarted A answers the resent call before the turn ends, but prints its line after that.
    await second.waitForLines(new RegExp(`workspace_write · session ${short} · (ok|replayed)`));
    assert.ok(count(first, 'ok') <= 1, 'the first A wrote the file at most once');
    assert.equal(count(second, 'ok'), 0, 'the restarted A did not write it again');
    assert.equal(count(second, 'replayed'), 1, `it answered the resent call from its receipt:\n${first.stderr()}\n---\n${second.stderr()}`);
    assert.deepEqual(existsSync(join(standIn, 'notes')) ? readdirSync(join(standIn, 'notes')) : [], [], 'nothing was written on B');
    events.close();
  });
});

async function waitFor(check: () => boolean, what: string, timeoutMs = 300_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
