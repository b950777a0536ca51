import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { MODULE_SESSION_ENV, MODULE_SOCKET_ENV, MODULE_TOKEN_ENV } from '../../src/messaging/index.js';
import { askModule } from '../../src/modules/index.js';
import { spawnBerth } from '../support/daemon.js';
import { openTab } from '../support/module.js';
import { startStack, type Stack } from '../support/stack.js';

const OWNER = 'owner-secret-for-module-tests';

/** Runs `berth …` to its end, with no module or owner settings inherited from the environment. */
async function berth(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child: ChildProcess = spawnBerth(args, { [MODULE_SOCKET_ENV]: '', [MODULE_TOKEN_ENV]: '', [MODULE_SESSION_ENV]: '', BERTH_TOKEN: '', BERTH_URL: '' });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

/**
 * The module protocol's owner settings, reachable from outside the daemon:
 * a tab's delivery mode and network flag (`PATCH /session/{id}/module`,
 * `berth msg tab`) and one token shared by several tabs whose questions name
 * their tab with `session` (`POST /module/token`, `berth msg share`).
 */
describe('module settings over the client API and berth msg', () => {
  let s: Stack;
  before(async () => {
    s = await startStack({ config: { sessionIdleTimeoutMs: 0, token: OWNER } });
  });
  after(() => s.close());
  const patch = (sessionId: string, body: unknown, headers: Record<string, string> = {}) =>
    s.daemon.json('PATCH', `/session/${sessionId}/module`, body, headers);

  it('PATCH sets a tab to read its inbox: a message to it waits there instead of becoming its next prompt', async () => {
    const a = await openTab(s.daemon);
    const c = await openTab(s.daemon);
    assert.equal((await s.daemon.json('GET', `/session/${c.sessionId}/module`)).body.delivery, 'prompt', 'the default');
    const set = await patch(c.sessionId, { delivery: 'inbox' });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.delivery, 'inbox');
    assert.equal(set.body.token, null, 'a PATCH never shows a token');
    const sent = await askModule(a.socket, { token: a.token, op: 'send', tab: c.tab, text: 'for later' });
    assert.match(sent.text, new RegExp(`Left in tab ${c.tab}'s inbox`));
    const listed = await askModule(a.socket, { token: a.token, op: 'list' });
    assert.equal(listed.tabs!.find((t) => t.tab === c.tab)!.inbox, true);
    const taken = await askModule(c.socket, { token: c.token, op: 'inbox' });
    assert.deepEqual(taken.messages!.map((m) => m.text), ['for later']);
  });

  it('PATCH network false makes the network rule apply: the tab may no longer send to a tab with network', async () => {
    const a = await openTab(s.daemon);
    const c = await openTab(s.daemon);
    await patch(c.sessionId, { delivery: 'inbox' });
    assert.equal((await askModule(a.socket, { token: a.token, op: 'send', tab: c.tab, text: 'before' })).ok, true);
    const set = await patch(a.sessionId, { network: false });
    assert.equal(set.body.network, false);
    const refused = await askModule(a.socket, { token: a.token, op: 'send', tab: c.tab, text: 'after' });
    assert.equal(refused.ok, false);
    assert.equal(refused.code, 'network_rule');
  });

  it('PATCH refuses a body that is not exactly delivery and/or network, and a module token', async () => {
    const a = await openTab(s.daemon);
    for (const body of [{}, { delivery: 'mail' }, { network: 'no' }, { delivery: 'inbox', colour: 'red' }, [1]]) {
      const r = await patch(a.sessionId, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, 'invalid_request', JSON.stringify(body));
    }
    // With an owner token configured, a module token is simply not it (without one, the route refuses it by name).
    const asModule = await patch(a.sessionId, { network: false }, { authorization: `Bearer ${a.token}` });
    assert.deepEqual([asModule.status, asModule.body.code], [401, 'unauthorized']);
    assert.equal((await s.daemon.json('GET', `/session/${a.sessionId}/module`)).body.network, true, 'nothing changed');
  });

  it('POST /module/token shares one token: each question names its tab with session, one without it is refused', async () => {
    const a = await openTab(s.daemon);
    const c = await openTab(s.daemon);
    const shared = await s.daemon.json('POST', '/module/token', { sessionIds: [a.sessionId, c.sessionId] });
    assert.equal(shared.status, 200, JSON.stringify(shared.body));
    assert.equal(shared.body.socket, a.socket);
    assert.deepEqual(shared.body.sessions.map((t: { tab: string }) => t.tab), [a.tab, c.tab]);
    const token = shared.body.token as string;
    assert.equal((await askModule(a.socket, { token, session: a.sessionId, op: 'list' })).you!.tab, a.tab);
    assert.equal((await askModule(a.socket, { token, session: c.sessionId, op: 'list' })).you!.tab, c.tab);
    const unnamed = await askModule(a.socket, { token, op: 'list' });
    assert.equal(unnamed.ok, false);
    assert.match(unnamed.text, /speaks for 2 tabs; name yours with "session"/);
    assert.equal((await askModule(a.socket, { token: a.token, op: 'list' })).code, 'unauthorized', 'the tab\'s own token was replaced');
  });

  it('POST /module/token refuses an empty list, a repeated or malformed id, and an unknown session', async () => {
    const a = await openTab(s.daemon);
    const cases: [unknown, number, string][] = [
      [{ sessionIds: [] }, 400, 'invalid_request'],
      [{ sessionIds: [a.sessionId, a.sessionId] }, 400, 'invalid_request'],
      [{ sessionIds: ['not-a-session'] }, 400, 'invalid_session_id'],
      [{ sessionIds: ['6f1c0b52-7a4e-4d3b-9c5e-2b8a1d0e9f11'] }, 404, 'session_not_found'],
    ];
    for (const [body, status, code] of cases) {
      const r = await s.daemon.json('POST', '/module/token', body);
      assert.deepEqual([r.status, r.body.code], [status, code], JSON.stringify(body));
    }
    assert.equal((await askModule(a.socket, { token: a.token, op: 'list' })).ok, true, 'a refused share replaced no token');
  });

  it('berth msg tab sets delivery and network over the client API with the owner token', async () => {
    const a = await openTab(s.daemon);
    const set = await berth(['msg', 'tab', a.sessionId, '--delivery', 'inbox', '--no-network', '--url', s.daemon.url, '--owner-token', OWNER]);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout, `tab ${a.tab}: reads its inbox, no network\n`);
    const tab = (await s.daemon.json('GET', `/session/${a.sessionId}/module`)).body;
    assert.deepEqual([tab.delivery, tab.network], ['inbox', false]);
    const back = await berth(['msg', 'tab', a.sessionId, '--network', '--json', '--url', s.daemon.url, '--owner-token', OWNER]);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(JSON.parse(back.stdout).network, true);
    const unauthorized = await berth(['msg', 'tab', a.sessionId, '--network', '--url', s.daemon.url]);
    assert.equal(unauthorized.code, 1);
    assert.match(unauthorized.stderr, /unauthorized/);
  });

  it('berth msg share prints a shared token that berth msg list uses with --session', async () => {
    const a = await openTab(s.daemon);
    const c = await openTab(s.daemon);
    const shared = await berth(['msg', 'share', a.sessionId, c.sessionId, '--url', s.daemon.url, '--owner-token', OWNER]);
    assert.equal(shared.code, 0, shared.stderr);
    const token = shared.stdout.trim();
    assert.match(token, /^berth_mod_/);
    for (const t of [a, c]) {
      const listed = await berth(['msg', 'list', '--socket', a.socket, '--token', token, '--session', t.sessionId, '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(JSON.parse(listed.stdout).you.tab, t.tab);
    }
    const unnamed = await berth(['msg', 'list', '--socket', a.socket, '--token', token]);
    assert.equal(unnamed.code, 1);
    assert.match(unnamed.stdout, /name yours with "session"/);
  });
});
