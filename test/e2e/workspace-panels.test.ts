import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { askModule } from '../../src/modules/index.js';
import { openTab } from '../support/module.js';
import { RawApp, serveCatalog, until, type RawTool } from '../support/raw-app.js';
import { startStack, type Stack } from '../support/stack.js';

const OWNER = 'owner-secret-for-panel-tests';
const TOOLS: RawTool[] = [
  { id: 'app.echo', policy: 'read' },
  { id: 'app.save', policy: 'write' },
];

/**
 * The read-only workspace panels the web app shows (docs/client-api.md, Workspace panels):
 * a workspace's agent tabs with their inboxes and messages, and its connected applications with their catalogs.
 */
describe('workspace panels over the client API', () => {
  let s: Stack;
  let workspaceId: string;
  before(async () => {
    s = await startStack({ config: { sessionIdleTimeoutMs: 0, token: OWNER } });
    workspaceId = s.daemon.daemon.core.workspaces.primary().id;
  });
  after(() => s.close());

  it('lists the open tabs with what waits in each inbox and the messages each sent, leaving the inbox as it was', async () => {
    const a = await openTab(s.daemon);
    const c = await openTab(s.daemon);
    await s.daemon.json('PATCH', `/session/${c.sessionId}/module`, { delivery: 'inbox' });
    const sent = await askModule(a.socket, { token: a.token, op: 'send', tab: c.tab, text: 'look at the README', kind: 'task' });
    assert.equal(sent.ok, true);
    const res = await s.daemon.json('GET', `/workspace/${workspaceId}/tabs`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.workspaceId, workspaceId);
    const byTab = new Map(res.body.tabs.map((t: any) => [t.tab, t]));
    const receiver: any = byTab.get(c.tab);
    assert.equal(receiver.delivery, 'inbox');
    assert.equal(receiver.waiting, 1);
    assert.deepEqual(
      receiver.inbox.map((m: any) => [m.fromTab, m.kind, m.text]),
      [[a.tab, 'task', 'look at the README']],
    );
    assert.equal('socket' in receiver, false, 'no machine path in the panel');
    const out = (byTab.get(a.tab) as any).messages.find((m: any) => m.direction === 'out');
    assert.equal(out.to, c.tab);
    assert.equal(out.text, 'look at the README');
    assert.equal(out.ok, true);
    assert.equal((await askModule(c.socket, { token: c.token, op: 'peek' })).messages!.length, 1, 'reading the panel took nothing');
    const byRoot = await s.daemon.json('GET', `/workspace/${encodeURIComponent(s.daemon.workspace)}/tabs?messages=0`);
    assert.equal(byRoot.status, 200);
    assert.ok(byRoot.body.tabs.every((t: any) => t.messages.length === 0), 'messages=0 leaves the messages out');
  });

  it('lists each connected application with its catalog, and a disconnected one as such', async () => {
    const token = (await s.daemon.daemon.core.tokens.createAppToken('panel-app', 'write')).token;
    const app = await RawApp.connect(s.daemon, token);
    await serveCatalog(app, TOOLS);
    await until(() => s.daemon.daemon.core.tools.applications.link(workspaceId, 'panel-app'));
    const res = await s.daemon.json('GET', `/workspace/${workspaceId}/applications`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const listed = res.body.applications.find((x: any) => x.applicationId === 'panel-app');
    assert.equal(listed.connected, true);
    assert.deepEqual(
      listed.tools.map((t: any) => [t.name, t.policy, t.available]),
      [
        ['app.echo', 'read', true],
        ['app.save', 'write', true],
      ],
    );
    assert.match(listed.tools[0].definitionRevision, /^[0-9a-f]{64}$|^sha256:/);
    await app.close();
    const later = await until(async () => {
      const r = await s.daemon.json('GET', `/workspace/${workspaceId}/applications`);
      const x = r.body.applications.find((y: any) => y.applicationId === 'panel-app');
      return x.connected === false ? x : undefined;
    });
    assert.equal(later.tools[0].available, false);
  });

  it('refuses an unknown workspace, a bad messages count, a missing token and a module token', async () => {
    const unknown = await s.daemon.json('GET', '/workspace/no-such-workspace/tabs');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'workspace_not_found');
    assert.equal((await s.daemon.json('GET', '/workspace/no-such-workspace/applications')).body.code, 'workspace_not_found');
    for (const bad of ['-1', 'abc', '201', '1e3']) {
      const r = await s.daemon.json('GET', `/workspace/${workspaceId}/tabs?messages=${bad}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.code, 'invalid_request');
    }
    const anonymous = await s.daemon.json('GET', `/workspace/${workspaceId}/tabs`, undefined, { authorization: '' });
    assert.equal(anonymous.status, 401);
    const tab = await openTab(s.daemon);
    const asAgent = await s.daemon.json('GET', `/workspace/${workspaceId}/tabs`, undefined, { authorization: `Bearer ${tab.token}` });
    assert.equal(asAgent.status === 401 || asAgent.status === 403, true, JSON.stringify(asAgent.body));
  });
});
