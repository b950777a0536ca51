import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runTurn } from '../support/history.js';
import { EventReader, select } from '../support/session-client.js';
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
  test('stats, context usage and rewind snapshots answer from what Berth counts and keeps', async () => {
    const { sessionId } = await newSession();
    await stack.daemon.json('POST', `/session/${sessionId}/approval-mode`, { mode: 'yolo' });
    const fresh = await stack.daemon.json('GET', `/session/${sessionId}/context-usage`);
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    assert.equal(fresh.body.usage.totalTokens, 0);
    assert.ok(fresh.body.usage.contextWindowSize > 0, 'the window of the current model, before any request');
    assert.equal(fresh.body.usage.isEstimated, true);
    stack.model.enqueue(
      { kind: 'reply', usage: { promptTokens: 100, completionTokens: 20 }, toolCalls: [{ name: 'workspace_write', arguments: { path: 'new.txt', content: 'n\n', expectedSha256: null } }] },
      { kind: 'reply', usage: { promptTokens: 150, completionTokens: 5 }, text: 'written' },
    );
    const turn = await runTurn(stack.daemon, sessionId, 'write new.txt');
    const stats = await stack.daemon.json('GET', `/session/${sessionId}/stats`);
    assert.equal(stats.status, 200, JSON.stringify(stats.body));
    assert.equal(stats.body.sessionId, sessionId);
    assert.equal(stats.body.promptCount, 1);
    const [model] = Object.values(stats.body.models) as { api: { totalRequests: number }; tokens: { prompt: number; candidates: number } }[];
    assert.deepEqual([model!.api.totalRequests, model!.tokens.prompt, model!.tokens.candidates], [2, 250, 25]);
    const usage = await stack.daemon.json('GET', `/session/${sessionId}/context-usage?detail=true`);
    assert.equal(usage.body.usage.totalTokens, 150, 'what the last request held');
    assert.equal(usage.body.usage.isEstimated, false);
    assert.equal(usage.body.usage.showDetails, true);
    const snaps = await stack.daemon.json('GET', `/session/${sessionId}/rewind/snapshots`);
    assert.equal(snaps.status, 200, JSON.stringify(snaps.body));
    assert.equal(snaps.body.snapshots.length, 1);
    assert.equal(snaps.body.snapshots[0].promptId, turn.promptId);
    assert.equal(snaps.body.snapshots[0].turnIndex, 0);
    assert.equal(snaps.body.snapshots[0].diffStats.filesChanged, 1);
    const rewound = await stack.daemon.json('POST', `/session/${sessionId}/rewind`, { promptId: snaps.body.snapshots[0].promptId });
    assert.equal(rewound.status, 200, JSON.stringify(rewound.body));
    assert.deepEqual((await stack.daemon.json('GET', `/session/${sessionId}/rewind/snapshots`)).body, { snapshots: [] });
  });

  test('tasks, agents, agent trace, hooks, LSP and attachments answer qwen\'s empty shapes', async () => {
    const { sessionId } = await newSession();
    const get = async (path: string) => (await stack.daemon.json('GET', `/session/${sessionId}/${path}`)).body;
    assert.deepEqual({ ...(await get('tasks')), now: 0 }, { v: 1, sessionId, now: 0, tasks: [] });
    assert.deepEqual({ ...(await get('agents')), now: 0 }, { v: 1, sessionId, now: 0, tasks: [] });
    assert.deepEqual(await get('agent-trace?rootAgentId=a1'), { v: 1, sessionId, nodes: [], rootAgentIds: [], warnings: [] });
    assert.equal((await get('agent-trace?rootAgentId=')).code, 'invalid_root_agent_id');
    assert.deepEqual(await get('hooks'), { v: 1, sessionId, workspaceCwd: stack.daemon.workspace, disabled: false, hooks: [] });
    const lsp = await get('lsp');
    assert.equal(lsp.enabled, false);
    assert.deepEqual(lsp.servers, []);
    assert.deepEqual(await get('attachments'), { attachments: [] });
    const missing = await stack.daemon.json('GET', '/session/00000000-0000-4000-8000-000000000000/stats');
    assert.equal(missing.status, 404);
  });

  test('what Berth cannot do is refused as 501 not_supported with what it does instead, never a 404', async () => {
    const { sessionId } = await newSession();
    const refused: [string, string, unknown?][] = [
      ['POST', `/session/${sessionId}/btw`, { question: 'why?' }],
      ['POST', `/session/${sessionId}/recap`, {}],
      ['POST', `/session/${sessionId}/fork`, { directive: 'x' }],
      ['POST', `/session/${sessionId}/branch`, { name: 'b' }],
      ['POST', `/session/${sessionId}/side-task`, {}],
      ['POST', `/session/${sessionId}/language`, { language: 'fr' }],
      ['POST', `/session/${sessionId}/worktree-reset`, {}],
      ['POST', `/session/${sessionId}/goal/clear`, {}],
      ['PATCH', `/session/${sessionId}/organization`, {}],
      ['GET', `/session/${sessionId}/attachments/att-1`],
      ['GET', `/session/${sessionId}/artifacts`],
      ['GET', `/session/${sessionId}/resources`],
      ['GET', `/session/${sessionId}/sources`],
      ['POST', `/session/${sessionId}/tasks/t1/cancel`, { kind: 'agent' }],
      ['POST', '/sessions/catalog', {}],
      ['DELETE', `/session/${sessionId}/attachments/att-1`],
      ['POST', '/sessions/archive', { sessionIds: [sessionId] }],
      ['POST', '/sessions/unarchive', { sessionIds: [sessionId] }],
      ['POST', '/sessions/delete', { sessionIds: [sessionId] }],
      ['POST', `/workspaces/${enc(stack.daemon.workspace)}/sessions/archive`, { sessionIds: [sessionId] }],
      ['POST', `/workspaces/${enc(stack.daemon.workspace)}/sessions/unarchive`, { sessionIds: [sessionId] }],
      ['POST', `/workspaces/${enc(stack.daemon.workspace)}/sessions/delete`, { sessionIds: [sessionId] }],
    ];
    for (const [method, path, body] of refused) {
      const res = await stack.daemon.json(method, path, body);
      assert.equal(res.status, 501, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'not_supported');
      assert.match(res.body.error, /Berth/, 'the message says what Berth does instead');
    }
    const upload = await fetch(`${stack.daemon.url}/session/${sessionId}/attachments?name=a.png`, {
      method: 'POST',
      headers: { 'Content-Type': 'image/png' },
      body: new Uint8Array([137, 80, 78, 71]),
    });
    assert.equal(upload.status, 501);
    assert.equal(((await upload.json()) as { code: string }).code, 'not_supported', 'an upload of any type is refused the same way');
    const unknown = await stack.daemon.json('POST', '/session/00000000-0000-4000-8000-000000000000/fork', {});
    assert.equal(unknown.status, 404, 'an unknown session is still 404');
    const elsewhere = await stack.daemon.json('POST', `/workspaces/${enc('/no/such/root')}/sessions/archive`, { sessionIds: [] });
    assert.equal(elsewhere.body.code, 'workspace_not_found');
  });

  test('!command runs as the session\'s workspace_exec under its approval mode', async () => {
    const { sessionId, clientId } = await newSession();
    const headers = { 'x-qwen-client-id': clientId };
    const empty = await stack.daemon.json('POST', `/session/${sessionId}/shell`, { command: '  ' }, headers);
    assert.equal(empty.body.code, 'invalid_shell_command');
    await stack.daemon.json('POST', `/session/${sessionId}/approval-mode`, { mode: 'plan' }, headers);
    const plan = await stack.daemon.json('POST', `/session/${sessionId}/shell`, { command: 'echo planned > p.txt' }, headers);
    assert.equal(plan.status, 403, JSON.stringify(plan.body));
    assert.equal(plan.body.code, 'policy_denied');
    await stack.daemon.json('POST', `/session/${sessionId}/approval-mode`, { mode: 'yolo' }, headers);
    const ran = await stack.daemon.json('POST', `/session/${sessionId}/shell`, { command: 'echo hello from berth' }, headers);
    assert.equal(ran.status, 200, JSON.stringify(ran.body));
    assert.deepEqual(ran.body, { exitCode: 0, output: 'hello from berth\n' });
    const failed = await stack.daemon.json('POST', `/session/${sessionId}/shell`, { command: 'exit 3' }, headers);
    assert.equal(failed.body.exitCode, 3);
  });
  test('!command in the default approval mode waits for a person: refused, it never runs', async () => {
    const { sessionId, clientId } = await newSession();
    const events = await EventReader.open(stack.daemon, sessionId, { lastEventId: null });
    const pending = stack.daemon.json('POST', `/session/${sessionId}/shell`, { command: 'echo ran > ran.txt' }, { 'x-qwen-client-id': clientId });
    const asked = await events.until((e) => e.type === 'permission_request');
    events.close();
    const vote = await stack.daemon.json('POST', `/session/${sessionId}/permission/${asked.data.requestId}`, select('cancel'));
    assert.equal(vote.status, 200, JSON.stringify(vote.body));
    const res = await pending;
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.code, 'permission_rejected');
    assert.equal(existsSync(join(stack.daemon.workspace, 'ran.txt')), false, 'the refused command never ran');
  });
});
