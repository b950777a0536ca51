import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { INTENTION, WORKSPACE_ID, ownerDirs, spawnOwner, until, type OwnerProcess, type TempOwnerDirs } from '../support/gateway.js';
import { FakeHost } from '../support/fake-host.js';
import { spawnBerth } from '../support/daemon.js';

/**
 * Issue 5, the owner side: `berth connect` (a real process) against B played
 * by hand, so each frame A receives is exactly the one under test.
 */

const TOKEN = 'berth_ch_owner-test-token';
const SESSION = randomUUID();

describe('berth connect checks every call before it runs', { timeout: 180_000 }, () => {
  let host: FakeHost;
  let dirs: TempOwnerDirs;
  let owner: OwnerProcess;

  before(async () => {
    host = await FakeHost.start({ workspaceId: WORKSPACE_ID, sessionId: SESSION, intention: INTENTION });
    dirs = ownerDirs({ 'hello.txt': 'hello\n' });
    owner = spawnOwner({ url: host.url, token: TOKEN, project: dirs.project, home: dirs.home, args: ['--max-policy', 'write'] });
    await owner.waitForLines(/channel ready/);
  });
  after(async () => {
    await owner.kill();
    await host.close();
    dirs.remove();
  });

  test('the channel token travels only as a bearer header, to the seed-000 path, with no query string', () => {
    const req = host.upgrades[0]!;
    assert.equal(req.url, `/api/ai-gateway/v1/workspaces/${WORKSPACE_ID}/channel`);
    assert.equal(req.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(req.headers.cookie, undefined);
    assert.equal(JSON.stringify(req.rawHeaders).split(TOKEN).length - 1, 1, 'the token appears once, in Authorization');
  });

  test('a call for another workspace, a malformed session or another intention is refused before anything runs', async () => {
    const channel = await host.nthChannel(1);
    const write = { tool: 'workspace_write', args: { path: 'made.txt', content: 'x', expectedSha256: null } };
    assert.equal((await channel.call({ ...write, workspaceId: 'other' })).code, 'workspace_mismatch');
    assert.equal((await channel.call({ ...write, workspaceId: '../..' })).code, 'workspace_mismatch');
    assert.equal((await channel.call({ ...write, sessionId: '../../etc' })).code, 'invalid_session_id');
    assert.equal((await channel.call({ ...write, intention: 'something else' })).code, 'intention_mismatch');
    assert.equal(existsSync(join(dirs.project, 'made.txt')), false);
  });

  test('unknown tools, arguments that are not JSON or break the schema, and paths out of the project are refused', async () => {
    const channel = await host.nthChannel(1);
    assert.equal((await channel.call({ tool: 'rm_rf', args: {} })).code, 'unknown_tool');
    assert.equal((await channel.call({ tool: 'workspace_read', args: '{not json' })).code, 'invalid_arguments');
    assert.equal((await channel.call({ tool: 'workspace_read', args: { path: 7 } })).code, 'invalid_arguments');
    assert.equal((await channel.call({ tool: 'workspace_read', args: { path: '../outside.txt' } })).code, 'path_outside_workspace');
    const read = await channel.call({ tool: 'workspace_read', args: { path: 'hello.txt' } });
    assert.equal(read.content, 'hello\n');
  });

  test('unattended, a write without --approve is refused, a critical call is above --max-policy, and a question cannot be answered', async () => {
    const channel = await host.nthChannel(1);
    const write = await channel.call({ tool: 'workspace_write', args: { path: 'made.txt', content: 'x', expectedSha256: null } });
    assert.equal(write.code, 'permission_rejected');
    assert.match(write.message, /--approve write/);
    assert.equal((await channel.call({ tool: 'workspace_exec', args: { command: 'touch made.txt' } })).code, 'policy_denied');
    assert.equal((await channel.call({ tool: 'workspace_ask', args: { question: 'Which branch?' } })).code, 'question_unanswered');
    assert.equal(existsSync(join(dirs.project, 'made.txt')), false);
    // Printed after the refusal has left: wait for it rather than read stderr at once.
    await owner.waitForLines(new RegExp(`workspace_write · session ${SESSION.slice(0, 8)} · permission_rejected`));
  });

  test('application tools: workspace_tools lists none and workspace_tool names an unknown one', async () => {
    const channel = await host.nthChannel(1);
    assert.deepEqual(await channel.call({ tool: 'workspace_tools', args: {} }), { tools: [] });
    assert.equal((await channel.call({ tool: 'workspace_tool', args: { name: 'browser.open', arguments: {} } })).code, 'unknown_tool');
  });
});

describe('berth connect keeps receipts of what it ran', { timeout: 180_000 }, () => {
  let host: FakeHost;
  let dirs: TempOwnerDirs;
  const owners: OwnerProcess[] = [];
  before(async () => {
    host = await FakeHost.start({ workspaceId: WORKSPACE_ID, sessionId: SESSION, intention: INTENTION });
    dirs = ownerDirs();
  });
  after(async () => {
    await Promise.all(owners.map((o) => o.kill()));
    await host.close();
    dirs.remove();
  });

  test('a repeated call id gets the stored result, also after A restarts, with no second effect; the id with other arguments is refused', async () => {
    const spawn = () => {
      const o = spawnOwner({ url: host.url, token: TOKEN, project: dirs.project, home: dirs.home, args: ['--approve', 'critical'] });
      owners.push(o);
      return o;
    };
    const first = spawn();
    const channel = await host.nthChannel(1);
    const append = { id: 'append-1', tool: 'workspace_exec', args: { command: 'echo effect >> effects.log' } };
    const ran = await channel.call(append);
    assert.equal(typeof ran.commandId, 'string');
    await until(() => existsSync(join(dirs.project, 'effects.log')));
    assert.deepEqual(await channel.call(append), ran, 'the stored result, command id included');

    await first.kill('SIGKILL');
    spawn();
    const again = await host.nthChannel(2);
    assert.deepEqual(await again.call(append), ran, 'the receipt outlives the process');
    const reused = await again.call({ ...append, args: { command: 'echo other >> effects.log' } });
    assert.equal(reused.code, 'call_id_reused');
    // A second run would have appended by the time its result was sent; the poll proves the first command finished.
    const poll = await again.call({ id: 'poll-1', tool: 'workspace_read', args: { path: 'effects.log' } });
    assert.equal(poll.content, 'effect\n');
  });
});

describe('berth connect dials with care', { timeout: 180_000 }, () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const setup = async (files: Record<string, string> = {}) => {
    const host = await FakeHost.start({ workspaceId: WORKSPACE_ID, sessionId: SESSION, intention: INTENTION });
    const dirs = ownerDirs(files);
    cleanups.push(() => dirs.remove(), () => host.close());
    return { host, dirs };
  };
  const spawn = (url: string, dirs: TempOwnerDirs, args: string[] = []) => {
    const o = spawnOwner({ url, token: TOKEN, project: dirs.project, home: dirs.home, args });
    cleanups.push(() => o.kill());
    return o;
  };

  test('a redirect at upgrade is never followed: A stops with exit code 3', async () => {
    const { host, dirs } = await setup();
    let redirected = 0;
    const target = createServer((_req, res) => res.end());
    target.on('upgrade', (_req, socket) => {
      redirected += 1;
      socket.destroy();
    });
    target.on('request', () => (redirected += 1));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => target.close(r)));
    const location = `http://127.0.0.1:${(target.address() as AddressInfo).port}/api/ai-gateway/v1/workspaces/${WORKSPACE_ID}/channel`;
    host.answers = [{ status: 302, headers: { location } }];
    const o = spawn(host.url, dirs);
    assert.equal(await o.exited, 3);
    assert.match(o.stderr(), /redirect \(302\); redirects are never followed/);
    assert.equal(redirected, 0);
    assert.equal(host.upgrades.length, 1);
  });

  test('a refused token stops A (exit 3); a busy host is dialled again with backoff', async () => {
    const { host, dirs } = await setup();
    host.answers = [
      { status: 429, body: JSON.stringify({ code: 'channel_limit_exceeded', error: 'Too many gateway channels' }) },
      { status: 503 },
      { status: 401, body: JSON.stringify({ code: 'unauthorized', error: 'Unauthorized' }) },
    ];
    const o = spawn(host.url, dirs);
    assert.equal(await o.exited, 3);
    assert.equal(host.upgrades.length, 3);
    assert.match(o.stderr(), /429 channel_limit_exceeded/);
    assert.match(o.stderr(), /refused the channel: 401 unauthorized/);
  });

  test('a channel that closes is dialled again, and a call before ready closes it with 1002', async () => {
    const { host, dirs } = await setup();
    host.answers = [{ accept: true, ready: false }, { accept: true }];
    const o = spawn(host.url, dirs);
    const first = await host.nthChannel(1);
    first.ws.send(JSON.stringify({ type: 'call', protocol: 1, id: 'early', workspaceId: WORKSPACE_ID, sessionId: SESSION, intention: INTENTION, tool: 'workspace_info', args: '{}' }));
    assert.equal((await first.closed).code, 1002);
    const second = await host.nthChannel(2);
    assert.equal((await second.call({ tool: 'workspace_info', args: {} })).project.workspaceId, WORKSPACE_ID);
    await o.waitForLines(/channel ready/);
  });

  test('the project is pinned per workspace id and home: another project under the same id is refused', async () => {
    const { host, dirs } = await setup();
    const first = spawn(host.url, dirs);
    await first.waitForLines(/channel ready/);
    await first.kill();
    const elsewhere = ownerDirs();
    cleanups.push(() => elsewhere.remove());
    const second = spawnOwner({ url: host.url, token: TOKEN, project: elsewhere.project, home: dirs.home });
    cleanups.push(() => second.kill());
    assert.equal(await second.exited, 2);
    assert.match(second.stderr(), new RegExp(`workspace ${WORKSPACE_ID} is pinned to ${dirs.project}`));
  });

  test('a host URL with credentials or a query, and a missing token, are refused before dialling', async () => {
    const { host, dirs } = await setup();
    const withUser = host.url.replace('http://', 'http://user:pw@');
    const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [[withUser], {}, /must not carry credentials/],
      [[`${host.url}/?token=${TOKEN}`], {}, /no query string/],
    ];
    for (const [url, env, message] of cases) {
      const o = spawnOwner({ url: url[0]!, token: TOKEN, project: dirs.project, home: dirs.home, env });
      cleanups.push(() => o.kill());
      assert.equal(await o.exited, 2);
      assert.match(o.stderr(), message);
    }
    const noToken = spawnBerth(['connect', host.url, '--workspace-id', WORKSPACE_ID, '--project', dirs.project, '--intention', INTENTION, '--home', dirs.home], {
      BERTH_CHANNEL_TOKEN: '',
    });
    let err = '';
    noToken.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((r) => noToken.once('exit', r));
    assert.equal(code, 2);
    assert.match(err, /a channel token is needed/);
    assert.equal(host.upgrades.length, 0);
  });

  test('the token may come from BERTH_CHANNEL_TOKEN instead of a file', async () => {
    const { host, dirs } = await setup();
    const child = spawnBerth(['connect', host.url, '--workspace-id', WORKSPACE_ID, '--project', dirs.project, '--intention', INTENTION, '--home', dirs.home], {
      BERTH_CHANNEL_TOKEN: TOKEN,
    });
    cleanups.push(() => child.kill());
    await host.nthChannel(1);
    assert.equal(host.upgrades[0]!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(readFileSync(join(dirs.home, 'berth.db')).length > 0, true);
  });
});
