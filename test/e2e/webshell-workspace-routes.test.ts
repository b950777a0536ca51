import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { stackPerSuite, type Stack } from '../support/stack.js';

/**
 * qwen serve's workspace- and daemon-level routes the qwen Web Shell calls: empty panels answer
 * qwen's idle shapes, the rest is refused as 501 not_supported, and none is a 404 route miss.
 */
describe('the qwen Web Shell workspace routes', () => {
  let stack: Stack;
  stackPerSuite((s) => (stack = s), { files: { 'README.md': 'r', 'src/app.ts': 'x' } });
  const enc = encodeURIComponent;
  const prefixes = (): string[] => ['/workspace', `/workspaces/${enc(stack.daemon.workspace)}`];

  test('memory, skills, hooks, extensions, agents and session groups answer qwen\'s idle shapes under both spellings', async () => {
    for (const prefix of prefixes()) {
      const memory = await stack.daemon.json('GET', `${prefix}/memory`);
      assert.equal(memory.status, 200, JSON.stringify(memory.body));
      assert.deepEqual(memory.body, { v: 1, workspaceCwd: stack.daemon.workspace, initialized: false, files: [], totalBytes: 0, fileCount: 0, ruleCount: 0 });
      assert.deepEqual((await stack.daemon.json('GET', `${prefix}/skills`)).body, { v: 1, workspaceCwd: stack.daemon.workspace, initialized: false, skills: [] });
      const hooks = await stack.daemon.json('GET', `${prefix}/hooks`);
      assert.deepEqual(hooks.body.hooks, []);
      assert.equal(hooks.body.initialized, false);
      assert.deepEqual((await stack.daemon.json('GET', `${prefix}/extensions`)).body, { v: 1, workspaceCwd: stack.daemon.workspace, initialized: false, extensions: [] });
      assert.deepEqual((await stack.daemon.json('GET', `${prefix}/agents`)).body, { v: 1, workspaceCwd: stack.daemon.workspace, agents: [] });
    }
    for (const prefix of ['/workspace', '/workspaces']) {
      const groups = await stack.daemon.json('GET', `${prefix}/${enc(stack.daemon.workspace)}/session-groups`);
      assert.deepEqual(groups.body, { groups: [], colorOptions: [] }, 'the sidebar asks under both spellings, always with the workspace');
    }
    assert.deepEqual((await stack.daemon.json('GET', '/extensions')).body, { v: 1, generation: 0, extensions: [] });
    const pairing = await stack.daemon.json('POST', '/web-shell/pairing');
    assert.equal(pairing.status, 200, JSON.stringify(pairing.body));
    assert.deepEqual(pairing.body, { active: false }, 'Berth pairs no phones: qwen\'s answer when pairing is off');
    assert.deepEqual((await stack.daemon.json('POST', '/web-shell/pairing', { address: '192.0.2.1' })).body, { active: false });
    const git = await stack.daemon.json('GET', '/workspace/git');
    assert.equal(git.status, 200);
    assert.equal(git.body.workspaceCwd, stack.daemon.workspace);
  });

  test('file reads, tools, providers and settings answer under /workspaces/{cwd} as they do for the primary workspace', async () => {
    const ws = `/workspaces/${enc(stack.daemon.workspace)}`;
    const file = await stack.daemon.json('GET', `${ws}/file?path=README.md`);
    assert.equal(file.status, 200, JSON.stringify(file.body));
    assert.deepEqual(file.body, (await stack.daemon.json('GET', '/file?path=README.md')).body);
    assert.deepEqual((await stack.daemon.json('GET', `${ws}/stat?path=src`)).body, (await stack.daemon.json('GET', '/stat?path=src')).body);
    assert.deepEqual((await stack.daemon.json('GET', `${ws}/list?path=src`)).body, (await stack.daemon.json('GET', '/list?path=src')).body);
    const bytes = await stack.daemon.json('GET', `${ws}/file/bytes?path=README.md`);
    assert.equal(bytes.status, 200, JSON.stringify(bytes.body));
    assert.equal((await stack.daemon.json('GET', `${ws}/file?path=../outside`)).status, 400, 'the file policy applies as on GET /file');
    assert.deepEqual((await stack.daemon.json('GET', `${ws}/tools`)).body, (await stack.daemon.json('GET', '/workspace/tools')).body);
    assert.deepEqual((await stack.daemon.json('GET', `${ws}/providers`)).body, { v: 1, workspaceCwd: stack.daemon.workspace, initialized: false, providers: [] });
    assert.deepEqual((await stack.daemon.json('GET', `${ws}/settings`)).body, { settings: [], warnings: [] });
  });

  test('the session routes under /workspaces/{cwd}/session/{id} lead to the session\'s own route, and live state lists the live ones', async () => {
    const created = await stack.daemon.json('POST', '/session', { cwd: stack.daemon.workspace, sessionScope: 'thread' });
    const { sessionId, clientId } = created.body;
    const ws = `/workspaces/${enc(stack.daemon.workspace)}`;
    const moved = await fetch(`${stack.daemon.url}${ws}/session/${sessionId}/transcript?limit=5`, { redirect: 'manual' });
    assert.equal(moved.status, 307);
    assert.equal(moved.headers.get('location'), `/session/${sessionId}/transcript?limit=5`);
    const renamed = await stack.daemon.json('PATCH', `${ws}/session/${sessionId}/metadata`, { displayName: 'from the workspace path' }, { 'x-qwen-client-id': clientId });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    const status = await stack.daemon.json('GET', `/session/${sessionId}/status`);
    assert.equal(status.body.displayName ?? status.body.metadata?.displayName, 'from the workspace path', JSON.stringify(status.body));
    assert.equal((await stack.daemon.json('GET', `${ws}/session/${sessionId}/transcript`)).status, 200);
    assert.equal((await stack.daemon.json('GET', `${ws}/session/${sessionId}/turn-index`)).status, 200);
    const live = await stack.daemon.json('GET', `${ws}/sessions/live-state`);
    assert.equal(live.status, 200, JSON.stringify(live.body));
    const row = live.body.sessions.find((s: { sessionId: string }) => s.sessionId === sessionId);
    assert.deepEqual(row, { sessionId, clientCount: 1, hasActivePrompt: false, hasRunningBackgroundTasks: false, isWaitingForPermission: false, isWaitingForUserQuestion: false });
    assert.equal((await stack.daemon.json('GET', `/workspaces/${enc('/no/such/root')}/sessions/live-state`)).body.code, 'workspace_not_found');
    const unknown = await stack.daemon.json('GET', `/workspaces/${enc('/no/such/root')}/session/${sessionId}/transcript`);
    assert.equal(unknown.body.code, 'workspace_not_found');
    const archived = await stack.daemon.json('GET', `${ws}/session/${sessionId}/archive/export`);
    assert.equal(archived.status, 501);
  });

  test('what Berth cannot do at workspace and daemon level is refused as 501 not_supported, and nothing changes', async () => {
    const before = readdirSync(stack.daemon.workspace).sort();
    const suffixes: [string, string, unknown?][] = [
      ['POST', '/agents', { name: 'a' }],
      ['DELETE', '/agents/reviewer'],
      ['POST', '/memory', { scope: 'workspace', content: 'x' }],
      ['GET', '/mcp'],
      ['POST', '/mcp/fs/restart'],
      ['PUT', '/config/mcp/servers/fs', { command: 'x' }],
      ['GET', '/runtime/mcp'],
      ['POST', '/extensions/install', { source: 'x' }],
      ['PUT', '/extensions/e1/activation', { activation: 'enabled' }],
      ['GET', '/extensions/operations/op1'],
      ['POST', '/skills/enable', {}],
      ['DELETE', '/skills/reviewer?scope=workspace'],
      ['GET', '/config/skills'],
      ['GET', '/permissions'],
      ['POST', '/permissions', { allow: ['x'] }],
      ['POST', '/settings', { key: 'v' }],
      ['PATCH', '/models', {}],
      ['GET', '/channels'],
      ['GET', '/channel-types'],
      ['PUT', '/channels/tg', {}],
      ['GET', '/git/diff'],
      ['GET', '/git/log'],
      ['POST', '/git/commit', { message: 'm' }],
      ['POST', '/git/push', {}],
      ['GET', '/github/prs'],
      ['GET', '/runtime/status'],
      ['POST', '/runtime/ensure', {}],
      ['GET', '/auth/status'],
      ['GET', '/voice'],
      ['POST', '/trust/request', {}],
      ['GET', '/env'],
      ['GET', '/preflight'],
      ['POST', '/init', {}],
      ['POST', '/notify', {}],
    ];
    const refused: [string, string, unknown?][] = [];
    for (const prefix of prefixes()) for (const [method, suffix, body] of suffixes) refused.push([method, `${prefix}${suffix}`, body]);
    const ws = enc(stack.daemon.workspace);
    refused.push(
      ['POST', '/extensions/install', {}],
      ['DELETE', '/extensions/e1'],
      ['POST', `/workspace/${ws}/session-groups`, { name: 'g' }],
      ['PATCH', `/workspaces/${ws}/session-groups/g1`, { name: 'h' }],
      ['PATCH', `/workspaces/${ws}`, { name: 'x' }],
      ['DELETE', `/workspaces/${ws}`],
      ['POST', '/workspaces', { cwd: '/tmp' }],
      ['GET', '/workspaces/runtime-stop-options'],
      ['GET', '/goals'],
      ['GET', '/usage/dashboard'],
      ['POST', '/language', { language: 'fr' }],
      ['POST', '/file/write', { path: 'new.txt', content: 'x' }],
      ['POST', `/workspaces/${ws}/file/write`, { path: 'new.txt', content: 'x' }],
      ['POST', `/workspaces/${ws}/file/edit`, { path: 'README.md', oldText: 'r', newText: 's' }],
      ['GET', `/workspace/${ws}/sessions/search?q=x`],
      ['GET', `/workspaces/${ws}/sessions/search?q=x`],
      ['GET', '/live/status'],
      ['POST', '/live/start', {}],
    );
    for (const [method, path, body] of refused) {
      const res = await stack.daemon.json(method, path, body);
      assert.equal(res.status, 501, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'not_supported', `${method} ${path}`);
      assert.match(res.body.error, /Berth/, 'the message says what Berth does instead');
    }
    assert.deepEqual(readdirSync(stack.daemon.workspace).sort(), before, 'no refused route wrote in the workspace');
    const listed = await stack.daemon.json('GET', '/daemon/status');
    assert.equal(listed.status, 200, 'the workspace is still registered after the refused DELETE');
    assert.equal((await stack.daemon.json('GET', `/workspaces/${ws}/memory`)).status, 200);
  });

  test('session-info counts the workspace\'s stored and live sessions under both spellings', async () => {
    const ws = enc(stack.daemon.workspace);
    const before = (await stack.daemon.json('GET', `/workspaces/${ws}/session-info`)).body;
    const kept = await stack.daemon.json('POST', '/session', { cwd: stack.daemon.workspace, sessionScope: 'thread' });
    const closed = await stack.daemon.json('POST', '/session', { cwd: stack.daemon.workspace, sessionScope: 'thread' });
    await stack.daemon.json('DELETE', `/session/${closed.body.sessionId}`, undefined, { 'x-qwen-client-id': closed.body.clientId });
    for (const prefix of ['/workspace', '/workspaces']) {
      const info = await stack.daemon.json('GET', `${prefix}/${ws}/session-info`);
      assert.equal(info.status, 200, JSON.stringify(info.body));
      assert.deepEqual(info.body, {
        active: before.active + 2,
        archived: 0,
        total: before.total + 2,
        live: before.live + 1,
        expensive: true,
        cost: 'store_scan',
      }, 'the closed session is stored, not live');
    }
    const listed = await stack.daemon.json('GET', `/workspaces/${ws}/sessions?size=100`);
    assert.equal(listed.body.sessions.length, before.total + 2, 'the count is the list\'s length');
    assert.ok(listed.body.sessions.some((s: { sessionId: string }) => s.sessionId === kept.body.sessionId));
    const unknown = await stack.daemon.json('GET', `/workspaces/${enc('/no/such/root')}/session-info`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'workspace_not_found');
  });

  test('standalone sessions are not advertised, and every /standalone route is refused as 501 not_supported', async () => {
    const caps = await stack.daemon.json('GET', '/capabilities');
    assert.equal(caps.status, 200);
    for (const feature of ['standalone_sessions_v1', 'standalone_session_options_v1']) {
      assert.ok(!caps.body.features.includes(feature), `the Web Shell calls /standalone only when ${feature} is advertised`);
    }
    const id = '6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f';
    const sessionsBefore = (await stack.daemon.json('GET', `/workspaces/${enc(stack.daemon.workspace)}/session-info`)).body.total;
    for (const [method, path, body] of [
      ['GET', '/standalone/session-options'],
      ['POST', '/standalone/sessions', { sessionId: id }],
      ['GET', '/standalone/sessions?size=20&archiveState=active'],
      ['GET', `/standalone/sessions/${id}`],
      ['POST', `/standalone/sessions/${id}/load`, {}],
      ['POST', `/standalone/sessions/${id}/resume`, {}],
      ['POST', `/standalone/sessions/${id}/repair-directory`, {}],
      ['PATCH', `/standalone/sessions/${id}/metadata`, { displayName: 'x' }],
      ['GET', `/standalone/sessions/${id}/export?format=markdown`],
      ['POST', '/standalone/sessions/archive', { sessionIds: [id] }],
      ['POST', '/standalone/sessions/unarchive', { sessionIds: [id] }],
      ['POST', '/standalone/sessions/delete', { sessionIds: [id] }],
      ['POST', `/standalone/sessions/${id}/fork`, {}],
    ] as [string, string, unknown?][]) {
      const res = await stack.daemon.json(method, path, body);
      if (path.endsWith('/fork')) {
        assert.equal(res.status, 404, 'a route qwen does not have is still a plain route miss');
        assert.equal(res.body.code, 'route_not_found');
        continue;
      }
      assert.equal(res.status, 501, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'not_supported');
      assert.match(res.body.error, /every session belongs to a registered workspace/);
    }
    const after = (await stack.daemon.json('GET', `/workspaces/${enc(stack.daemon.workspace)}/session-info`)).body.total;
    assert.equal(after, sessionsBefore, 'no refused create made a session');
  });

  test('an unknown workspace is still 404 workspace_not_found, for answers and refusals alike', async () => {
    const elsewhere = enc('/no/such/root');
    for (const [method, path] of [
      ['GET', `/workspaces/${elsewhere}/memory`],
      ['GET', `/workspaces/${elsewhere}/agents`],
      ['GET', `/workspaces/${elsewhere}/file?path=README.md`],
      ['GET', `/workspaces/${elsewhere}/tools`],
      ['GET', `/workspace/${elsewhere}/session-groups`],
      ['GET', `/workspaces/${elsewhere}/git/diff`],
      ['POST', `/workspaces/${elsewhere}/permissions`],
      ['DELETE', `/workspaces/${elsewhere}`],
      ['PATCH', `/workspace/${elsewhere}/session-groups/g1`],
    ]) {
      const res = await stack.daemon.json(method!, path!, method === 'GET' || method === 'DELETE' ? undefined : {});
      assert.equal(res.status, 404, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'workspace_not_found', `${method} ${path}`);
    }
  });
});

describe('the qwen Web Shell workspace routes behind an owner token', () => {
  let stack: Stack;
  stackPerSuite((s) => (stack = s), { config: { token: 'owner-secret' } });

  test('session-info, pairing and the standalone refusals answer only the owner token', async () => {
    const ws = encodeURIComponent(stack.daemon.workspace);
    for (const path of [`/workspaces/${ws}/session-info`, `/workspace/${ws}/session-info`, '/standalone/sessions', '/standalone/session-options', '/web-shell/pairing']) {
      const method = path === '/web-shell/pairing' ? 'POST' : 'GET';
      const anonymous = await fetch(`${stack.daemon.url}${path}`, { method });
      assert.equal(anonymous.status, 401, path);
      assert.equal(((await anonymous.json()) as { code: string }).code, 'unauthorized', path);
      const wrong = await fetch(`${stack.daemon.url}${path}`, { method, headers: { authorization: 'Bearer not-the-token' } });
      assert.equal(wrong.status, 401, path);
      const owner = await stack.daemon.json(method, path);
      assert.equal(owner.status, path.startsWith('/standalone') ? 501 : 200, `${path}: ${JSON.stringify(owner.body)}`);
    }
  });
});
