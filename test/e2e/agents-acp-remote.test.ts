import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TEST_AGENT_ID, withAgents } from '../support/acp-stack.js';
import {
  WORKSPACE_ID,
  channelToken,
  ownerDirs,
  spawnOwner,
  startGatewayHost,
  connectedOwnerPerSuite,
  type GatewayHost,
  type OwnerProcess,
  type TempOwnerDirs,
} from '../support/gateway.js';
import { EventReader, submit, type WireEvent } from '../support/session-client.js';
import { ChannelProxy } from '../support/ws-proxy.js';

/**
 * An external agent on a remote workspace (issue 12): the agent process runs
 * on B, the host; its fs/* and terminal/* requests run on A's project through
 * the gateway channel, as the built-in agent's tools do.
 */

const said = (events: readonly WireEvent[], promptId: string): string =>
  events
    .filter((e) => e.type === 'session_update' && e.promptId === promptId && e.data.update.sessionUpdate === 'agent_message_chunk')
    .map((e) => e.data.update.content.text)
    .join('');

describe('an external agent on a workspace reached through the gateway channel', { timeout: 120_000 }, () => {
  let host: GatewayHost;
  let dirs: TempOwnerDirs;

  connectedOwnerPerSuite({ 'src.txt': 'alpha beta\n' }, (pair) => ({ host, dirs } = pair), { agents: withAgents().config!.agents! });

  test('reads, writes and runs a command on the owner’s project; the folder it runs in on B stays empty', async () => {
    const b = host.b;
    const created = await b.json('POST', '/session', { cwd: WORKSPACE_ID, sessionScope: 'thread', approvalMode: 'yolo', modelServiceId: TEST_AGENT_ID });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const sessionId = created.body.sessionId as string;
    const events = await EventReader.open(b, sessionId);
    const turn = async (text: string) => {
      const res = await submit(b, sessionId, text);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const terminal = await events.terminal(res.body.promptId);
      assert.equal(terminal.type, 'turn_complete', JSON.stringify(terminal.data));
      return said(events.seen, res.body.promptId);
    };

    assert.equal(await turn('read src.txt'), 'content: alpha beta\n');
    assert.equal(await turn('write notes/from-agent.txt written through the channel'), 'written');
    assert.equal(readFileSync(join(dirs.project, 'notes/from-agent.txt'), 'utf8'), 'written through the channel');
    assert.equal(await turn('run cat notes/from-agent.txt'), 'exit 0: written through the channel');
    assert.match(await turn('outside'), /^read failed: -32602 .*outside the workspace/);

    const standIn = join(b.home, 'agents', TEST_AGENT_ID, 'remote', `ws-${WORKSPACE_ID}`);
    assert.deepEqual(readdirSync(standIn), [], 'nothing landed on B');
    assert.equal(existsSync(join(standIn, 'notes')), false);
    events.close();
  });
});

describe('an external agent’s write through a channel cut before B has its result', { timeout: 120_000 }, () => {
  let host: GatewayHost;
  let dirs: TempOwnerDirs;
  let proxy: ChannelProxy;
  let owner: OwnerProcess;

  before(async () => {
    host = await startGatewayHost({ agents: withAgents().config!.agents!, channelWaitMs: 60_000 });
    dirs = ownerDirs();
    proxy = await ChannelProxy.start(host.b.url);
    owner = spawnOwner({ url: proxy.url, token: await channelToken(host.b), project: dirs.project, home: dirs.home, args: ['--approve', 'critical'] });
    await owner.waitForLines(/channel ready/);
  });
  after(async () => {
    await owner?.kill();
    await proxy?.close();
    await host?.close();
    dirs?.remove();
  });

  test('is sent again with the same call id and A replays its stored result: the file is written once', async () => {
    let dropped = 0;
    proxy.judge = (frame) => {
      if (frame.direction === 'toServer' && dropped === 0 && frame.text?.includes('"type":"result"')) {
        const result = JSON.parse(JSON.parse(frame.text).result);
        if (typeof result.created === 'boolean') {
          dropped += 1;
          return 'drop-and-cut';
        }
      }
      return 'forward';
    };
    const b = host.b;
    const created = await b.json('POST', '/session', { cwd: WORKSPACE_ID, sessionScope: 'thread', approvalMode: 'yolo', modelServiceId: TEST_AGENT_ID });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const sessionId = created.body.sessionId as string;
    const events = await EventReader.open(b, sessionId);
    const res = await submit(b, sessionId, 'write once.txt written once');
    await events.terminal(res.body.promptId);
    assert.equal(said(events.seen, res.body.promptId), 'written');
    assert.equal(dropped, 1, 'the proxy lost the write result once');
    assert.equal(readFileSync(join(dirs.project, 'once.txt'), 'utf8'), 'written once');
    const short = sessionId.slice(0, 8);
    // A prints a call's status line after its result has left, so the turn can end before the line arrives.
    await owner.waitForLines(new RegExp(`workspace_write · session ${short} · (ok|replayed)`), 2);
    assert.equal(owner.stderr().match(new RegExp(`workspace_write · session ${short} · ok`, 'g'))?.length, 1, 'A wrote once');
    assert.equal(owner.stderr().match(new RegExp(`workspace_write · session ${short} · replayed`, 'g'))?.length, 1, 'and replayed its result');
    events.close();
  });
});
