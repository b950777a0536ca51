import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { stackPerSuite, type Stack } from '../support/stack.js';

/**
 * qwen serve's routes outside the 25 operations that the qwen Web Shell calls (issue 13): each is
 * answered in qwen's shape, or degrades to qwen's own "nothing here" shape, instead of a 404.
 */
describe('the qwen Web Shell routes', () => {
  let stack: Stack;
  stackPerSuite((s) => (stack = s), { files: { 'src/app.ts': 'x', 'src/util.ts': 'y', 'README.md': 'r' } });
  const enc = encodeURIComponent;

  async function newSession(): Promise<{ sessionId: string; clientId: string }> {
    const res = await stack.daemon.json('POST', '/session', { cwd: stack.daemon.workspace, sessionScope: 'thread' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return { sessionId: res.body.sessionId, clientId: res.body.clientId };
  }

  test('the workspace session list pages the workspace sessions newest first under both spellings', async () => {
    const a = await newSession();
    const b = await newSession();
    await stack.daemon.json('PATCH', `/session/${a.sessionId}/metadata`, { displayName: 'older renamed later' }, { 'x-qwen-client-id': a.clientId });
    for (const prefix of ['/workspace', '/workspaces']) {
      const first = await stack.daemon.json('GET', `${prefix}/${enc(stack.daemon.workspace)}/sessions?size=1&archiveState=active`);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.sessions.length, 1);
      assert.equal(first.body.sessions[0].sessionId, a.sessionId, 'the renamed session was updated last');
      assert.equal(first.body.sessions[0].displayName, 'older renamed later');
      assert.equal(first.body.sessions[0].isArchived, false);
      assert.equal(typeof first.body.nextCursor, 'string');
      const second = await stack.daemon.json('GET', `${prefix}/${enc(stack.daemon.workspace)}/sessions?size=1&cursor=${first.body.nextCursor}`);
      assert.ok(second.body.sessions.some((s: { sessionId: string }) => s.sessionId === b.sessionId));
    }
  });

  test('the session list filters Berth cannot match answer an empty page, and bad filters are refused by code', async () => {
    await newSession();
    const ws = enc(stack.daemon.workspace);
    const archived = await stack.daemon.json('GET', `/workspace/${ws}/sessions?archiveState=archived`);
    assert.deepEqual(archived.body, { sessions: [] });
    const sourced = await stack.daemon.json('GET', `/workspace/${ws}/sessions?sourceType=channel`);
    assert.deepEqual(sourced.body, { sessions: [] }, 'no session was created from a channel');
    const defaults = await stack.daemon.json('GET', `/workspace/${ws}/sessions?sourceType=default&size=1000`);
    assert.ok(defaults.body.sessions.length >= 1, 'the sidebar asks for sourceType=default: sessions created without a source');
    const tagged = await stack.daemon.json('POST', '/session', { cwd: stack.daemon.workspace, sessionScope: 'thread', sourceType: 'ci', sourceId: 'run-7' });
    const ci = await stack.daemon.json('GET', `/workspace/${ws}/sessions?sourceType=ci&sourceId=run-7`);
    assert.deepEqual(ci.body.sessions.map((s: { sessionId: string }) => s.sessionId), [tagged.body.sessionId]);
    assert.equal(ci.body.sessions[0].sourceType, 'ci');
    assert.equal((await stack.daemon.json('GET', `/workspace/${ws}/sessions?sourceType=Bad!`)).body.code, 'invalid_session_source');
    const bad = await stack.daemon.json('GET', `/workspace/${ws}/sessions?archiveState=gone`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_archive_state');
    const cursor = await stack.daemon.json('GET', `/workspace/${ws}/sessions?cursor=abc`);
    assert.equal(cursor.body.code, 'invalid_cursor');
    const unknown = await stack.daemon.json('GET', `/workspace/${enc('/no/such/root')}/sessions`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'workspace_not_found');
  });

  test('@file completion globs the named workspace', async () => {
    const res = await stack.daemon.json('GET', `/workspaces/${enc(stack.daemon.workspace)}/glob?pattern=${enc('src/*.ts')}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([...res.body.matches].sort(), ['src/app.ts', 'src/util.ts']);
  });

  test('the git chip shows the branch of HEAD, and null outside a checkout', async () => {
    const none = await stack.daemon.json('GET', `/workspaces/${enc(stack.daemon.workspace)}/git`);
    assert.deepEqual(none.body, { v: 2, workspaceCwd: stack.daemon.workspace, branch: null });
    mkdirSync(join(stack.daemon.workspace, '.git'), { recursive: true });
    writeFileSync(join(stack.daemon.workspace, '.git', 'HEAD'), 'ref: refs/heads/feature/web\n');
    const branch = await stack.daemon.json('GET', `/workspaces/${enc(stack.daemon.workspace)}/git`);
    assert.equal(branch.body.branch, 'feature/web');
  });

  test('the daemon status page counts sessions and workspaces', async () => {
    await newSession();
    const res = await stack.daemon.json('GET', '/daemon/status');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
    assert.ok(res.body.sessionCount >= 1);
    assert.equal(res.body.workspaces[0].workspaceCwd, stack.daemon.workspace);
    assert.equal((await stack.daemon.json('GET', '/daemon/status?detail=everything')).body.code, 'invalid_detail');
  });

  test('brand, providers and settings answer qwen\'s empty shapes and models lists the switchable ids', async () => {
    assert.deepEqual((await stack.daemon.json('GET', '/brand')).body, {});
    const providers = await stack.daemon.json('GET', '/workspace/providers');
    assert.deepEqual(providers.body.providers, []);
    assert.deepEqual((await stack.daemon.json('GET', '/workspace/settings')).body, { settings: [], warnings: [] });
    const models = await stack.daemon.json('GET', '/workspace/models');
    assert.deepEqual(
      models.body.models.map((m: { id: string }) => m.id),
      ['scripted/scripted-model', 'scripted/scripted-model-2'],
    );
  });

  test('supported commands list the built-in agent\'s slash commands, goal says "none", and an unknown session is 404', async () => {
    const { sessionId } = await newSession();
    const commands = await stack.daemon.json('GET', `/session/${sessionId}/supported-commands`);
    assert.deepEqual(
      commands.body.availableCommands.map((c: { name: string }) => c.name),
      ['compact', 'usage', 'mode', 'model', 'rewind', 'export'],
    );
    assert.deepEqual({ ...commands.body, availableCommands: [] }, { v: 1, sessionId, availableCommands: [], availableSkills: [] });
    assert.deepEqual((await stack.daemon.json('GET', `/session/${sessionId}/goal`)).body, { snapshot: null });
    const missing = await stack.daemon.json('GET', '/session/00000000-0000-4000-8000-000000000000/goal');
    assert.equal(missing.status, 404);
  });

  test('a detached client id is no longer accepted on the session', async () => {
    const { sessionId, clientId } = await newSession();
    const detach = await stack.daemon.json('POST', `/session/${sessionId}/detach`, {}, { 'x-qwen-client-id': clientId });
    assert.equal(detach.status, 204);
    const after = await stack.daemon.json('POST', `/session/${sessionId}/heartbeat`, {}, { 'x-qwen-client-id': clientId });
    assert.equal(after.body.code, 'invalid_client_id');
  });
});
