import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { lastUserText } from '../../src/devtools/scripted-model/index.js';
import { askModule } from '../../src/modules/index.js';
import { openTab, until } from '../support/module.js';
import { natsMissing, startNats, type NatsServer } from '../support/nats.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../support/postgres.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * One workspace served by two nodes of a cluster (docs/cluster-bus.md): two daemons with their
 * own homes and module sockets, one PostgreSQL, one NATS. A session lives on the node that
 * created it; the workspace's views that span sessions (the module tabs, the session list's
 * `live`) show every node's sessions whichever node is asked.
 */
const missing = natsMissing() ?? postgresMissing();
const TOKEN = 'cluster-workspace-token';

describe('a workspace across two nodes', { skip: missing, timeout: 120_000 }, () => {
  let pg: PostgresServer;
  let nats: NatsServer;
  let one: Stack;
  let two: Stack;

  before(async () => {
    [pg, nats] = await Promise.all([startPostgres(), startNats()]);
    const url = await pg.createDatabase();
    const node = (nodeId: string, workspace?: string) =>
      startStack({
        ...(workspace !== undefined && { workspace }),
        config: { token: TOKEN, store: { engine: 'postgres', url }, cluster: { nodeId, leaseMs: 60_000 }, bus: nats.url },
      });
    one = await node('n1');
    two = await node('n2', one.daemon.workspace);
  });
  after(async () => {
    await two?.close();
    await one?.close();
    await Promise.all([nats?.stop(), pg?.stop()]);
  });

  test('a tab lists the tabs another node runs, and a message sent to one reaches its agent there as a prompt', async () => {
    const here = await openTab(one.daemon);
    const there = await openTab(two.daemon);
    assert.notEqual(here.socket, there.socket, 'module sockets are per node');

    const listed = await askModule(here.socket, { token: here.token, op: 'list' });
    assert.equal(listed.ok, true, listed.text);
    const seen = listed.tabs?.find((t) => t.tab === there.tab);
    assert.ok(seen, `tab ${there.tab} of node n2 is listed on n1: ${listed.text}`);
    assert.deepEqual(Object.keys(seen).sort(), ['harness', 'inbox', 'network', 'profile', 'tab', 'title', 'trouble', 'waiting'], 'no node or session id leaks into the answer');
    assert.equal(seen.inbox, false);

    two.model.enqueue({ kind: 'reply', text: 'Got it.' });
    const text = 'Please look at the failing test on your side.';
    const sent = await askModule(here.socket, { token: here.token, op: 'send', tab: there.tab, text, kind: 'task' });
    assert.equal(sent.ok, true, sent.text);
    assert.match(sent.text, /Delivered/);
    await until(() => two.model.requests.length > 0, 'the receiving agent to be prompted on n2');
    assert.match(lastUserText(two.model.requests[0]!.body) ?? '', new RegExp(`Message from tab ${here.tab}.*kind: task[\\s\\S]*${text}`));
    assert.equal(one.model.requests.length, 0, 'nothing ran on the sender’s node');
  });

  test('a message to an inbox tab on another node waits there, counted, until that tab takes it', async () => {
    const here = await openTab(one.daemon);
    const there = await openTab(two.daemon);
    const patched = await two.daemon.json('PATCH', `/session/${there.sessionId}/module`, { delivery: 'inbox' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const sent = await askModule(here.socket, { token: here.token, op: 'send', tab: there.tab, text: 'For your inbox.' });
    assert.equal(sent.ok, true, sent.text);
    assert.match(sent.text, /Left in .*inbox/);
    const listed = await askModule(here.socket, { token: here.token, op: 'list' });
    assert.equal(listed.tabs?.find((t) => t.tab === there.tab)?.waiting, 1);
    // The owner's tabs panel on either node shows both tabs, with what waits in the other node's inbox.
    for (const stack of [one, two]) {
      const panel = await stack.daemon.json('GET', `/workspace/${encodeURIComponent(one.daemon.workspace)}/tabs`);
      assert.equal(panel.status, 200, JSON.stringify(panel.body));
      const tabs = panel.body.tabs as Array<{ tab: string; sessionId: string; delivery: string; waiting: number; inbox: Array<{ text: string }>; messages: unknown[] }>;
      assert.deepEqual(tabs.filter((t) => t.tab === here.tab || t.tab === there.tab).map((t) => t.tab), [here.tab, there.tab].sort((a, b) => Number(a) - Number(b)));
      assert.equal(new Set(tabs.map((t) => t.tab)).size, tabs.length, 'each tab once');
      const theirs = tabs.find((t) => t.tab === there.tab)!;
      assert.equal(theirs.sessionId, there.sessionId);
      assert.equal(theirs.delivery, 'inbox');
      assert.equal(theirs.waiting, 1);
      assert.deepEqual(theirs.inbox.map((m) => m.text), ['For your inbox.']);
      assert.ok(Array.isArray(theirs.messages));
    }
    const taken = await askModule(there.socket, { token: there.token, op: 'inbox' });
    assert.deepEqual(taken.messages?.map((m) => [m.tab, m.text]), [[here.tab, 'For your inbox.']]);
  });

  test('the session list shows a session live on the other node as live, on either node', async () => {
    const there = await openTab(two.daemon);
    const stateOn = async (stack: Stack): Promise<string | undefined> => {
      const page = await stack.daemon.json('GET', '/sessions?limit=500');
      assert.equal(page.status, 200, JSON.stringify(page.body));
      return page.body.sessions.find((s: { sessionId: string }) => s.sessionId === there.sessionId)?.state;
    };
    assert.equal(await stateOn(two), 'live', 'live on its own node');
    assert.equal(await stateOn(one), 'live', 'and on the node that does not run it');
    const closed = await two.daemon.json('DELETE', `/session/${there.sessionId}`);
    assert.ok(closed.status < 300, JSON.stringify(closed.body));
    await until(async () => (await stateOn(one)) === 'persisted', 'the closed session to show as persisted on n1');
  });
});
