import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect, type BerthApp } from '../../src/app/index.js';
import { openTab, type OpenedTab } from '../support/module.js';
import { until } from '../support/raw-app.js';
import { EventReader, select } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';
import { removeDir, tempDir } from '../support/tmp.js';

const text = (r: any): string => (r.content ?? []).map((c: { text?: string }) => c.text ?? '').join('');
const endpoint = (s: Stack, sessionId: string) => new URL(`${s.daemon.url}/session/${sessionId}/mcp`);

async function mcpClient(s: Stack, tab: OpenedTab, token = tab.token): Promise<Client> {
  const client = new Client({ name: 'outside-agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(endpoint(s, tab.sessionId), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** A raw `initialize` POST over node:http (fetch would not send a Host of our choosing): the status the endpoint answers. */
function rawInitialize(s: Stack, sessionId: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(endpoint(s, sessionId), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    });
    req.once('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end(body);
  });
}

/**
 * Issue 15, Berth as an MCP server over streamable HTTP: an agent Berth does not host speaks
 * for one tab with that tab's token and reaches its tabs, its workspace tools under the
 * session's approval mode (a write waits for a person's vote on the session's stream), and
 * the tools of the applications connected to its workspace.
 */
describe('POST /session/{id}/mcp: a session as an MCP server for an agent outside Berth', { timeout: 120_000 }, () => {
  let s: Stack;
  let primaryRoot: string;
  let other: string;
  let tab: OpenedTab;
  let elsewhere: OpenedTab;
  let client: Client;
  let events: EventReader;
  let app: BerthApp;
  before(async () => {
    primaryRoot = tempDir('berth-ws-');
    other = tempDir('berth-other-ws-');
    s = await startStack({
      workspace: primaryRoot,
      files: { 'hello.txt': 'hello from the workspace\n' },
      config: { sessionIdleTimeoutMs: 0, workspaces: [primaryRoot, other], allowOrigins: ['https://ide.example'] },
    });
    tab = await openTab(s.daemon);
    elsewhere = await openTab(s.daemon, { cwd: other });
    const appToken = (await s.daemon.daemon.core.tokens.createAppToken('mcp-app', 'write')).token;
    app = await connect(s.daemon.url, appToken, {
      tools: [
        {
          id: 'notes.shout',
          description: 'Say a text louder',
          category: 'notes',
          policy: 'read',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
          handler: ({ text: said }) => ({ loud: String(said).toUpperCase() }),
        },
      ],
    });
    const primary = s.daemon.daemon.core.workspaces.primary().id;
    await until(() => s.daemon.daemon.core.tools.applications.list(primary).some((t) => t.name === 'notes.shout'));
    events = await EventReader.open(s.daemon, tab.sessionId);
    client = await mcpClient(s, tab);
  });
  after(async () => {
    await client?.close();
    events?.close();
    await app?.close();
    await s?.close();
    removeDir(primaryRoot);
    removeDir(other);
  });

  it('lists the tab tools, the workspace tools and the connected application tools', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of ['tabs_list', 'tabs_send', 'tabs_inbox', 'tabs_peek', 'workspace_read', 'workspace_write', 'notes.shout']) {
      assert.ok(names.includes(name), `${name} is listed: ${names.join(', ')}`);
    }
    assert.equal(new Set(names).size, names.length, 'every name once');
    const listed = await client.callTool({ name: 'tabs_list', arguments: {} });
    assert.match(text(listed), new RegExp(`You are tab ${tab.tab}`));
  });

  it('a write waits for the vote on the session stream; approved, the file is on disk once', async () => {
    const call = client.callTool({ name: 'workspace_write', arguments: { path: 'approved.txt', content: 'written through MCP\n', expectedSha256: null } });
    const request = await events.type('permission_request', (e) => e.data.toolCall?.rawInput?.path === 'approved.txt');
    assert.equal(request.data.toolCall._meta.toolName, 'workspace_write');
    assert.equal(existsSync(join(s.daemon.workspace, 'approved.txt')), false, 'nothing written before the vote');
    const vote = await s.daemon.json('POST', `/session/${tab.sessionId}/permission/${request.data.requestId}`, select('proceed_once'));
    assert.equal(vote.status, 200);
    const result = await call;
    assert.equal(result.isError, false, text(result));
    assert.equal(readFileSync(join(s.daemon.workspace, 'approved.txt'), 'utf8'), 'written through MCP\n');
    const toolCallId = request.data.toolCall.toolCallId;
    const done = await events.until((e) => e.type === 'session_update' && e.data.update.toolCallId === toolCallId && e.data.update.status === 'completed');
    assert.equal(done.promptId, undefined, 'the call belongs to no prompt');
    const started = events.seen.filter((e) => e.type === 'session_update' && e.data.update.sessionUpdate === 'tool_call' && e.data.update.toolCallId === toolCallId);
    assert.equal(started.length, 1, 'one call, one tool_call event');
  });

  it('a rejected write is an MCP tool error and nothing reaches the disk', async () => {
    const call = client.callTool({ name: 'workspace_write', arguments: { path: 'rejected.txt', content: 'should not exist\n', expectedSha256: null } });
    const request = await events.type('permission_request', (e) => e.data.toolCall?.rawInput?.path === 'rejected.txt');
    assert.equal((await s.daemon.json('POST', `/session/${tab.sessionId}/permission/${request.data.requestId}`, select('cancel'))).status, 200);
    const result = await call;
    assert.equal(result.isError, true);
    assert.match(text(result), /rejected/i);
    assert.equal(existsSync(join(s.daemon.workspace, 'rejected.txt')), false);
  });

  it('a client that goes away while its write waits withdraws the request, and nothing is written', async () => {
    const gone = new AbortController();
    const call = fetch(endpoint(s, tab.sessionId), {
      method: 'POST',
      signal: gone.signal,
      headers: { authorization: `Bearer ${tab.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'workspace_write', arguments: { path: 'abandoned.txt', content: 'never\n', expectedSha256: null } },
      }),
    }).catch(() => undefined);
    const request = await events.type('permission_request', (e) => e.data.toolCall?.rawInput?.path === 'abandoned.txt');
    gone.abort();
    await call;
    const resolved = await events.type('permission_resolved', (e) => e.data.requestId === request.data.requestId);
    assert.deepEqual(resolved.data.outcome, { outcome: 'cancelled' });
    const late = await s.daemon.json('POST', `/session/${tab.sessionId}/permission/${request.data.requestId}`, select('proceed_once'));
    assert.equal(late.status, 404, 'a late vote finds nothing to allow');
    assert.equal(existsSync(join(s.daemon.workspace, 'abandoned.txt')), false);
  });

  it('a read runs without asking anyone', async () => {
    const asked = events.seen.filter((e) => e.type === 'permission_request').length;
    const result = await client.callTool({ name: 'workspace_read', arguments: { path: 'hello.txt' } });
    assert.equal(result.isError, false, text(result));
    assert.match(text(result), /hello from the workspace/);
    await events.until((e) => e.type === 'session_update' && e.data.update.rawInput?.path === 'hello.txt');
    assert.equal(events.seen.filter((e) => e.type === 'permission_request').length, asked, 'no permission request for a read');
  });

  it('a connected application tool is callable by its own name', async () => {
    const result = await client.callTool({ name: 'notes.shout', arguments: { text: 'quiet words' } });
    assert.equal(result.isError, false, text(result));
    assert.match(text(result), /QUIET WORDS/);
  });

  it('an unknown tool is a JSON-RPC error, bad arguments a tool error, and the daemon carries on', async () => {
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /unknown_tool/);
    const bad = await client.callTool({ name: 'workspace_read', arguments: { path: 42 } });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /invalid_arguments/);
    const raw = await fetch(endpoint(s, tab.sessionId), {
      method: 'POST',
      headers: { authorization: `Bearer ${tab.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc": "2.0", "id": 7, "method": ',
    });
    assert.equal(raw.status, 400, 'malformed JSON is refused');
    assert.equal((await s.daemon.fetch('/health')).status, 200);
    const again = await client.callTool({ name: 'workspace_read', arguments: { path: 'hello.txt' } });
    assert.equal(again.isError, false);
  });

  it('refuses a missing token, a wrong one, another session’s, another workspace’s, and a foreign Origin', async () => {
    const refusals: Array<[string, Record<string, string>, number]> = [
      ['no token', {}, 401],
      ['a wrong token', { authorization: 'Bearer berth_mod_not-a-token' }, 401],
      ['the token of a tab of another workspace', { authorization: `Bearer ${elsewhere.token}` }, 401],
      ['a foreign Origin', { authorization: `Bearer ${tab.token}`, origin: 'https://evil.example' }, 403],
      ['a foreign Host', { authorization: `Bearer ${tab.token}`, host: 'evil.example' }, 403],
    ];
    for (const [what, headers, status] of refusals) {
      assert.equal(await rawInitialize(s, tab.sessionId, headers), status, what);
    }
    assert.equal(await rawInitialize(s, tab.sessionId, { authorization: `Bearer ${tab.token}` }), 200, 'the tab token itself passes');
    assert.equal(await rawInitialize(s, tab.sessionId, { authorization: `Bearer ${tab.token}`, origin: 'https://ide.example' }), 200, 'an allowed Origin passes');
    const preflight = await fetch(endpoint(s, tab.sessionId), {
      method: 'OPTIONS',
      headers: { origin: 'https://ide.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, mcp-protocol-version' },
    });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Mcp-Protocol-Version/);
    const inQuery = await fetch(`${endpoint(s, tab.sessionId)}?token=${tab.token}`, { method: 'POST', body: '{}' });
    assert.equal(inQuery.status, 400, 'no credentials in the URL');
    const noToken = new Client({ name: 'nobody', version: '1' });
    await assert.rejects(noToken.connect(new StreamableHTTPClientTransport(endpoint(s, tab.sessionId))));
    const wrongSession = new Client({ name: 'elsewhere', version: '1' });
    await assert.rejects(
      wrongSession.connect(
        new StreamableHTTPClientTransport(endpoint(s, elsewhere.sessionId), { requestInit: { headers: { authorization: `Bearer ${tab.token}` } } }),
      ),
    );
  });

  it('in plan mode only reads are listed, and a write is refused without asking anyone', async () => {
    const planning = await openTab(s.daemon, { approvalMode: 'plan' });
    const planEvents = await EventReader.open(s.daemon, planning.sessionId);
    const planner = await mcpClient(s, planning);
    try {
      const names = (await planner.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('workspace_read'));
      assert.ok(!names.includes('workspace_write'), 'no write tool in plan mode');
      await assert.rejects(planner.callTool({ name: 'workspace_delete', arguments: { path: 'hello.txt' } }), /unknown_tool/);
      assert.ok(existsSync(join(s.daemon.workspace, 'hello.txt')), 'the file is still there');
      // A read after it: once its events are in, everything the delete could have published is too.
      await planner.callTool({ name: 'workspace_read', arguments: { path: 'hello.txt' } });
      await planEvents.until((e) => e.type === 'session_update' && e.data.update.status === 'completed');
      assert.equal(planEvents.seen.filter((e) => e.type === 'permission_request').length, 0, 'nobody was asked');
      assert.equal(planEvents.seen.filter((e) => e.data?.update?.rawInput?.path === 'hello.txt' && e.data.update._meta?.toolName === 'workspace_delete').length, 0);
    } finally {
      await planner.close();
      planEvents.close();
    }
  });

  it('GET and DELETE answer 405: the endpoint is stateless', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(endpoint(s, tab.sessionId), { method, headers: { authorization: `Bearer ${tab.token}`, accept: 'text/event-stream' } });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST');
    }
  });
});
