import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MODULE_MOST_LINE, MODULE_MOST_TEXT } from '../../src/protocol/limits.js';
import type { Received } from '../../src/messaging/types.js';
import { askModule, exchangeLine } from '../../src/modules/index.js';
import { openTab, type OpenedTab } from '../support/module.js';
import { startStack, type Stack } from '../support/stack.js';
import { removeDir, tempDir } from '../support/tmp.js';

const answerOf = (raw: string) => JSON.parse(raw.split('\n', 1)[0]!);

describe('the module protocol over a real workspace socket (seed 004)', () => {
  let s: Stack;
  let primary: string;
  let second: string;
  before(async () => {
    primary = tempDir('berth-ws-');
    second = tempDir('berth-ws2-');
    s = await startStack({ workspace: primary, config: { workspaces: [primary, second], sessionIdleTimeoutMs: 0 } });
  });
  after(async () => {
    await s.close();
    removeDir(primary);
    removeDir(second);
  });

  /** A tab whose agent reads its own inbox (as an external agent's would), so messages stay put for peek and inbox. */
  const readingTab = async (): Promise<OpenedTab> => {
    const tab = await openTab(s.daemon);
    s.daemon.daemon.core.messaging.declare(tab.sessionId, { delivery: 'inbox' });
    return tab;
  };

  it('advertises each local workspace socket in /capabilities: a 0600 socket in a 0700 folder of the home', async () => {
    const caps = await s.daemon.json('GET', '/capabilities');
    const [first, other] = caps.body.workspaces;
    assert.equal(typeof first.moduleSocket, 'string');
    assert.ok(first.moduleSocket.startsWith(s.daemon.home + '/'), 'the socket is in the daemon home');
    assert.notEqual(first.moduleSocket, other.moduleSocket, 'each workspace has its own socket');
    const st = statSync(first.moduleSocket);
    assert.ok(st.isSocket());
    assert.equal(st.mode & 0o777, 0o600);
    assert.equal(statSync(dirname(first.moduleSocket)).mode & 0o777, 0o700);
    assert.ok(caps.body.features.includes('module_protocol'));
  });

  it('answers list with the asking tab and every other open tab: network, inbox, waiting, trouble', async () => {
    const a = await openTab(s.daemon);
    const c = await readingTab();
    await s.daemon.json('PATCH', `/session/${a.sessionId}/metadata`, { displayName: 'reviewer' });
    await askModule(a.socket, { token: a.token, op: 'send', tab: c.tab, text: 'one for later' });
    const answer = await askModule(a.socket, { token: a.token, op: 'list' });
    assert.equal(answer.ok, true);
    assert.deepEqual(answer.you, {
      tab: a.tab,
      title: 'reviewer',
      harness: 'built-in',
      profile: 'scripted',
      workspace: s.daemon.workspace.split('/').pop(),
    });
    assert.ok(!answer.tabs!.some((t) => t.tab === a.tab), 'the asking tab is not among the others');
    const listedC = answer.tabs!.find((t) => t.tab === c.tab);
    assert.deepEqual(listedC, {
      tab: c.tab,
      title: `tab ${c.tab}`,
      harness: 'built-in',
      profile: 'scripted',
      network: true,
      inbox: true,
      waiting: 1,
      trouble: null,
    });
    assert.match(answer.text, new RegExp(`You are tab ${a.tab} \\(reviewer\\)`));
    assert.match(answer.text, new RegExp(`tab ${c.tab}: .*1 waiting`));
  });

  it('puts a sent message in a reading tab inbox; peek shows it without taking, inbox takes all oldest first', async () => {
    const a = await openTab(s.daemon);
    const c = await readingTab();
    const first = await askModule(a.socket, { token: a.token, op: 'send', tab: c.tab, text: 'Run the tests.', kind: 'task' });
    assert.equal(first.ok, true);
    assert.match(first.text, /inbox/);
    await askModule(a.socket, { token: a.token, op: 'send', tab: c.tab, text: 'FYI: the parser is mine.' });
    const from = `built-in · tab ${a.tab}`;
    const expected = [
      { from, tab: a.tab, kind: 'task', text: 'Run the tests.' },
      { from, tab: a.tab, kind: 'info', text: 'FYI: the parser is mine.' },
    ];
    const strip = (ms: readonly Received[]) =>
      ms.map(({ sentAt, ...rest }) => {
        assert.match(sentAt, /^\d{4}-\d\d-\d\dT/);
        return rest;
      });
    const peeked = await askModule(c.socket, { token: c.token, op: 'peek' });
    assert.deepEqual(strip(peeked.messages!), expected);
    assert.deepEqual(strip((await askModule(c.socket, { token: c.token, op: 'peek' })).messages!), expected, 'peek takes nothing');
    const taken = await askModule(c.socket, { token: c.token, op: 'inbox' });
    assert.deepEqual(strip(taken.messages!), expected);
    assert.match(taken.text, /2 messages, oldest first/);
    assert.match(taken.text, new RegExp(`Tab ${a.tab} waits for your report`));
    assert.deepEqual((await askModule(c.socket, { token: c.token, op: 'inbox' })).messages, []);
    assert.deepEqual((await askModule(c.socket, { token: c.token, op: 'peek' })).messages, []);
  });

  it('sends to all: every other tab, with an outcome per tab and the network rule asked at each', async () => {
    const a = await openTab(s.daemon);
    const b = await openTab(s.daemon);
    const c = await readingTab();
    const messaging = s.daemon.daemon.core.messaging;
    messaging.declare(a.sessionId, { network: false });
    messaging.declare(c.sessionId, { network: false });
    const answer = await askModule(a.socket, { token: a.token, op: 'send', tab: 'all', text: 'I am taking the parser.' });
    assert.equal(answer.ok, true);
    const others = (await askModule(a.socket, { token: a.token, op: 'list' })).tabs!.map((t) => t.tab);
    assert.deepEqual(
      answer.sent!.map((o) => o.tab),
      others,
      'one outcome for every other open tab',
    );
    const atB = answer.sent!.find((o) => o.tab === b.tab)!;
    const atC = answer.sent!.find((o) => o.tab === c.tab)!;
    assert.equal(atB.ok, false);
    assert.match(atB.text, /without network access may not send to a tab with it/);
    assert.equal(atC.ok, true);
    assert.match(answer.text, new RegExp(`Sent to \\d+ of ${others.length} tabs`));
    const atCInbox = await askModule(c.socket, { token: c.token, op: 'peek' });
    assert.deepEqual(atCInbox.messages!.map((m) => m.text), ['I am taking the parser.']);
    messaging.declare(a.sessionId, { network: true });
    messaging.declare(c.sessionId, { network: true });
  });

  it('answers a line of exactly MOST_LINE bytes and refuses one byte more unread, acting on nothing in it', async () => {
    const a = await openTab(s.daemon);
    const c = await readingTab();
    const question = JSON.stringify({ token: a.token, op: 'send', tab: c.tab, text: 'padded' });
    const exact = question + ' '.repeat(MODULE_MOST_LINE - Buffer.byteLength(question));
    assert.equal(Buffer.byteLength(exact), MODULE_MOST_LINE);
    const accepted = answerOf(await exchangeLine(a.socket, exact + '\n'));
    assert.equal(accepted.ok, true, accepted.text);
    const over = answerOf(await exchangeLine(a.socket, exact + ' \n'));
    assert.equal(over.ok, false);
    assert.equal(over.code, 'malformed');
    assert.match(over.text, /longer than 262144 bytes/);
    const overWithoutNewline = answerOf(await exchangeLine(a.socket, exact + ' '));
    assert.equal(overWithoutNewline.code, 'malformed');
    const inbox = await askModule(c.socket, { token: c.token, op: 'peek' });
    assert.equal(inbox.messages!.length, 1, 'only the line within the limit was acted on');
  });

  it('calls a line that is not JSON malformed', async () => {
    const a = await openTab(s.daemon);
    const raw = await exchangeLine(a.socket, 'send tab 3 hello\n');
    assert.equal(raw.split('\n').length, 2, 'one answer line, then the connection closed');
    const answer = answerOf(raw);
    assert.equal(answer.ok, false);
    assert.equal(answer.code, 'malformed');
    assert.match(answer.text, /not JSON/);
  });

  it('calls an unknown op malformed and does nothing', async () => {
    const a = await openTab(s.daemon);
    const answer = await askModule(a.socket, { token: a.token, op: 'delete', tab: '1' });
    assert.equal(answer.code, 'malformed');
    assert.match(answer.text, /"op" must be one of list, send, inbox, peek/);
  });

  it('calls a question without a token malformed and refuses a wrong one', async () => {
    const a = await openTab(s.daemon);
    const c = await readingTab();
    const missing = await askModule(a.socket, { op: 'send', tab: c.tab, text: 'hi' });
    assert.equal(missing.code, 'malformed');
    for (const token of ['berth_mod_not-a-token', '', a.token.slice(0, -1)]) {
      const wrong = await askModule(a.socket, { token, op: 'send', tab: c.tab, text: 'hi' });
      assert.equal(wrong.ok, false);
      assert.equal(wrong.code, 'unauthorized');
      assert.match(wrong.text, /not one Berth gave/);
    }
    const otherSession = await askModule(a.socket, { token: a.token, session: c.sessionId, op: 'list' });
    assert.equal(otherSession.code, 'unauthorized', 'a token does not speak for a session it was not given');
    assert.deepEqual((await askModule(c.socket, { token: c.token, op: 'peek' })).messages, []);
  });

  it('refuses text over MOST_TEXT characters and takes exactly MOST_TEXT, counted in characters', async () => {
    const a = await openTab(s.daemon);
    const c = await readingTab();
    const exact = '😀'.repeat(MODULE_MOST_TEXT);
    assert.equal(exact.length, 2 * MODULE_MOST_TEXT, 'twice as many UTF-16 units as characters');
    assert.equal((await askModule(a.socket, { token: a.token, op: 'send', tab: c.tab, text: exact })).ok, true);
    const over = await askModule(a.socket, { token: a.token, op: 'send', tab: c.tab, text: exact + 'x' });
    assert.equal(over.ok, false);
    assert.equal(over.code, 'message_too_long');
    assert.match(over.text, /16001 characters; at most 16000/);
    const inbox = await askModule(c.socket, { token: c.token, op: 'peek' });
    assert.deepEqual(inbox.messages!.map((m) => m.text.length), [exact.length]);
  });

  it('refuses a message to an unknown tab, naming the open ones, and one to itself', async () => {
    const a = await openTab(s.daemon);
    const unknown = await askModule(a.socket, { token: a.token, op: 'send', tab: '999', text: 'hello?' });
    assert.equal(unknown.ok, false);
    assert.equal(unknown.code, 'unknown_tab');
    assert.match(unknown.text, /no tab 999 is open in this workspace\. Open tabs: tab \d+/);
    const byTitle = await askModule(a.socket, { token: a.token, op: 'send', tab: 'nobody', text: 'hello?' });
    assert.equal(byTitle.code, 'unknown_tab');
    const self = await askModule(a.socket, { token: a.token, op: 'send', tab: a.tab, text: 'hello me' });
    assert.equal(self.ok, false);
    assert.match(self.text, new RegExp(`tab ${a.tab} is you`));
  });

  it('reaches a tab by its title', async () => {
    const a = await openTab(s.daemon);
    const c = await readingTab();
    await s.daemon.json('PATCH', `/session/${c.sessionId}/metadata`, { displayName: 'tester' });
    const answer = await askModule(a.socket, { token: a.token, op: 'send', tab: 'tester', text: 'by name' });
    assert.equal(answer.ok, true, answer.text);
    assert.deepEqual((await askModule(c.socket, { token: c.token, op: 'peek' })).messages!.map((m) => m.text), ['by name']);
  });

  it('lets a token shared by several tabs name its tab with session', async () => {
    const a = await openTab(s.daemon);
    const b = await readingTab();
    const shared = await s.daemon.daemon.core.messaging.shareToken([a.sessionId, b.sessionId]);
    const unnamed = await askModule(a.socket, { token: shared, op: 'list' });
    assert.equal(unnamed.ok, false);
    assert.match(unnamed.text, /speaks for 2 tabs; name yours with "session"/);
    assert.equal((await askModule(a.socket, { token: shared, session: a.sessionId, op: 'list' })).you!.tab, a.tab);
    assert.equal((await askModule(a.socket, { token: shared, session: b.sessionId, op: 'list' })).you!.tab, b.tab);
    assert.equal((await askModule(a.socket, { token: a.token, op: 'list' })).code, 'unauthorized', 'sharing replaced the old token');
  });

  it('opens a workspace socket only to tokens of that workspace', async () => {
    const a = await openTab(s.daemon);
    const elsewhere = await openTab(s.daemon, { cwd: second });
    assert.notEqual(elsewhere.socket, a.socket);
    assert.equal(elsewhere.tab, '1', 'tab numbers are per workspace');
    assert.equal((await askModule(elsewhere.socket, { token: a.token, op: 'list' })).code, 'unauthorized');
    const list = await askModule(elsewhere.socket, { token: elsewhere.token, op: 'list' });
    assert.deepEqual(list.tabs, [], 'tabs of other workspaces are not listed');
  });

  it('keeps a closed session inbox readable with its token, while it leaves the tab list and can no longer send', async () => {
    const a = await openTab(s.daemon);
    const c = await readingTab();
    await askModule(a.socket, { token: a.token, op: 'send', tab: c.tab, text: 'for after you close' });
    assert.equal((await s.daemon.json('DELETE', `/session/${c.sessionId}`)).status, 204);
    const listed = await askModule(a.socket, { token: a.token, op: 'list' });
    assert.ok(!listed.tabs!.some((t) => t.tab === c.tab), 'a closed session is not a tab');
    assert.equal((await askModule(a.socket, { token: a.token, op: 'send', tab: c.tab, text: 'late' })).code, 'unknown_tab');
    assert.equal((await askModule(c.socket, { token: c.token, op: 'send', tab: a.tab, text: 'from the grave' })).code, 'session_not_found');
    const taken = await askModule(c.socket, { token: c.token, op: 'inbox' });
    assert.deepEqual(taken.messages!.map((m) => m.text), ['for after you close']);
  });

  it('keeps answering others while a silent peer holds a connection open', async () => {
    const a = await openTab(s.daemon);
    const silent = createConnection(a.socket);
    await new Promise<void>((resolve) => silent.once('connect', () => resolve()));
    try {
      const answers = await Promise.all([1, 2, 3].map(() => askModule(a.socket, { token: a.token, op: 'list' })));
      assert.ok(answers.every((x) => x.ok));
    } finally {
      silent.destroy();
    }
  });
});

describe('module access for the owner (GET /session/{id}/module)', () => {
  let s: Stack;
  before(async () => {
    s = await startStack({ config: { sessionIdleTimeoutMs: 0 } });
  });
  after(() => s.close());

  it('shows a session its tab, socket and token once; POST issues a new token and the old one stops working', async () => {
    const a = await openTab(s.daemon);
    assert.match(a.token, /^berth_mod_/);
    const again = await s.daemon.json('GET', `/session/${a.sessionId}/module`);
    assert.equal(again.status, 200);
    assert.equal(again.body.token, null);
    assert.match(again.body.tokenNote, /POST \/session\/.*\/module\/token/);
    assert.equal(again.body.tab, a.tab);
    assert.equal(again.body.socket, a.socket);
    const rotated = await s.daemon.json('POST', `/session/${a.sessionId}/module/token`);
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.token, a.token);
    assert.deepEqual(rotated.body.env, {
      BERTH_MODULE_SOCKET: a.socket,
      BERTH_MODULE_TOKEN: rotated.body.token,
      BERTH_MODULE_SESSION: a.sessionId,
    });
    assert.equal((await askModule(a.socket, { token: a.token, op: 'list' })).code, 'unauthorized');
    assert.equal((await askModule(a.socket, { token: rotated.body.token, op: 'list' })).ok, true);
  });

  it('refuses a module token presented to it, so one session cannot read another session token', async () => {
    const a = await openTab(s.daemon);
    const b = await openTab(s.daemon);
    const r = await s.daemon.json('GET', `/session/${b.sessionId}/module`, undefined, { authorization: `Bearer ${a.token}` });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'token_scope_denied');
    const p = await s.daemon.json('POST', `/session/${b.sessionId}/module/token`, undefined, { authorization: `Bearer ${a.token}` });
    assert.equal(p.status, 403);
  });

  it('answers 404 for a session that is not open', async () => {
    const r = await s.daemon.json('GET', '/session/550e8400-e29b-41d4-a716-446655440000/module');
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'session_not_found');
  });
});
