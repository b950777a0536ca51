import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { silentLogger } from '../../src/log.js';
import { startOwner, type RunningOwner } from '../../src/main/owner.js';
import { sqliteRepositories } from '../../src/main/repositories.js';
import { TOOL_SUBPROTOCOL } from '../../src/protocol/toolproto/subprotocol.js';
import { openStore } from '../../src/store/db.js';
import { TokenService } from '../../src/tokens/tokens.js';
import { FakeHost } from '../support/fake-host.js';
import { INTENTION, WORKSPACE_ID, ownerDirs, until, type TempOwnerDirs } from '../support/gateway.js';

/**
 * The owner process (`berth connect`) opens two kinds of socket: its channel
 * to the agent host and, with `--tools-listen`, a listener for applications.
 * Both take the one frame limit the owner is given, not a fixed 2 MiB.
 */

const LIMIT = 64 * 1024;

describe('an owner given a smaller frame limit', { timeout: 30_000 }, () => {
  let host: FakeHost;
  let dirs: TempOwnerDirs;
  let owner: RunningOwner;
  const status: string[] = [];

  before(async () => {
    host = await FakeHost.start({ workspaceId: WORKSPACE_ID, sessionId: randomUUID(), intention: INTENTION });
    dirs = ownerDirs({ 'notes.txt': 'hello\n' });
    owner = await startOwner({
      hostUrl: host.url,
      workspaceId: WORKSPACE_ID,
      project: dirs.project,
      intention: INTENTION,
      token: 'berth_ch_frame-limit-test',
      home: dirs.home,
      maxPolicy: 'critical',
      approve: 'critical',
      terminal: null,
      status: (line) => status.push(line),
      log: silentLogger(),
      toolsListen: { hostname: '127.0.0.1', port: 0 },
      maxFrameBytes: LIMIT,
    });
  });
  after(async () => {
    await owner.stop();
    await host.close();
    dirs.remove();
  });

  test('closes its channel when the host sends a call frame above the limit (1009), and still serves one below it', async () => {
    const channel = await host.nthChannel(1);
    const small = await channel.call({ tool: 'workspace_read', args: { path: 'notes.txt' } });
    assert.equal(small.content, 'hello\n');
    const large = { type: 'call', protocol: 1, id: 'too-large', workspaceId: WORKSPACE_ID, intention: INTENTION, tool: 'workspace_write' };
    channel.ws.send(JSON.stringify({ ...large, sessionId: randomUUID(), args: JSON.stringify({ path: 'big.txt', content: 'x'.repeat(LIMIT), expectedSha256: null }) }));
    assert.equal((await channel.closed).code, 1009);
  });

  test('closes an application on its listener that sends a frame above the limit (1009)', async () => {
    const line = await until(() => status.find((l) => l.startsWith('applications connect at ')));
    const url = line.slice('applications connect at '.length);
    const store = openStore(dirs.home);
    const { token } = await new TokenService(sqliteRepositories(store.db).tokens, null).createAppToken('frames', 'read');
    store.close();
    const ws = new WebSocket(url, [TOOL_SUBPROTOCOL], { headers: { authorization: `Bearer ${token}` } });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
    });
    ws.send(JSON.stringify({ type: 'tool.catalog', id: 'big', pad: 'x'.repeat(LIMIT) }));
    assert.equal(await closed, 1009);
  });
});
