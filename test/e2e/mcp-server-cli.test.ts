import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connect, type BerthApp } from '../../src/app/index.js';
import { openTab, until, type OpenedTab } from '../support/module.js';
import { EventReader, select } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';

const repoRoot = new URL('../..', import.meta.url).pathname;

/** `berth mcp` from source on stdio, for an MCP client: `env` on top of ours, `args` after `mcp`. */
function berthMcp(env: Record<string, string>, args: readonly string[] = [], stderr: 'inherit' | 'pipe' = 'inherit'): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(repoRoot, 'src/cli/main.ts'), 'mcp', ...args],
    cwd: repoRoot,
    env,
    stderr,
  });
}
const text = (r: any): string => (r.content ?? []).map((c: { text?: string }) => c.text ?? '').join('');

/**
 * Issue 15, Berth as an MCP server: an agent Berth does not host runs `berth mcp` as its MCP
 * server (here the official SDK's client plays that agent) with the environment an external
 * agent's tab is given. Through it, it sees the workspace's tabs, hands a task to a built-in
 * agent tab, and reads that agent's report from its inbox.
 */
describe('berth mcp: the workspace tabs as MCP tools for an agent outside Berth', { timeout: 120_000 }, () => {
  let s: Stack;
  let outside: OpenedTab;
  let builtin: OpenedTab;
  let client: Client;
  before(async () => {
    s = await startStack({ config: { sessionIdleTimeoutMs: 0 } });
    outside = await openTab(s.daemon);
    // The built-in agent may answer without asking anyone (tabs_send is a write).
    builtin = await openTab(s.daemon, { approvalMode: 'yolo' });
    // The outside agent reads its inbox itself: nothing is delivered to it as a prompt.
    s.daemon.daemon.core.messaging.declare(outside.sessionId, { delivery: 'inbox' });
    const env = await s.daemon.daemon.core.messaging.externalAgentEnv(outside.sessionId);
    client = new Client({ name: 'outside-agent', version: '1' });
    await client.connect(berthMcp({ ...(process.env as Record<string, string>), BERTH_LOG_LEVEL: 'warn', ...env }));
  });
  after(async () => {
    await client?.close();
    await s?.close();
  });

  it('lists tabs_list, tabs_send, tabs_inbox and tabs_peek, and tabs_list says which tab it is', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['tabs_inbox', 'tabs_list', 'tabs_peek', 'tabs_send']);
    const listed = await client.callTool({ name: 'tabs_list', arguments: {} });
    assert.equal(listed.isError, false);
    assert.match(text(listed), new RegExp(`You are tab ${outside.tab}`));
    assert.match(text(listed), new RegExp(`tab ${builtin.tab}`));
  });

  it('sends a task to a built-in agent tab and reads the report the agent sent back', async () => {
    // The built-in agent gets the task as its next prompt and answers with tabs_send.
    s.model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'tabs_send', arguments: { tab: String(outside.tab), text: 'report: the tests pass', kind: 'report' } }] },
      { kind: 'reply', text: 'done' },
    );
    const sent = await client.callTool({ name: 'tabs_send', arguments: { tab: String(builtin.tab), text: 'Please run the tests.', kind: 'task' } });
    assert.equal(sent.isError, false, text(sent));
    let report = '';
    await until(async () => {
      const peeked = await client.callTool({ name: 'tabs_peek', arguments: {} });
      return /the tests pass/.test(text(peeked));
    }, 'the report in the outside tab inbox');
    const taken = await client.callTool({ name: 'tabs_inbox', arguments: {} });
    report = text(taken);
    assert.match(report, /report: the tests pass/);
    const prompt = JSON.stringify(s.model.completions().find((c) => JSON.stringify(c.messages).includes('Please run the tests.'))?.messages);
    assert.match(prompt, /Please run the tests\./, 'the built-in agent was given the task');
    const again = await client.callTool({ name: 'tabs_inbox', arguments: {} });
    assert.doesNotMatch(text(again), /the tests pass/, 'taken messages are gone');
  });

  it('a refused operation is an MCP tool error with the daemon words, not a crash', async () => {
    const refused = await client.callTool({ name: 'tabs_send', arguments: { tab: '999', text: 'anyone?' } });
    assert.equal(refused.isError, true);
    assert.ok(text(refused).length > 0);
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    assert.equal(unknown.isError, true);
  });
});

/**
 * With the daemon's address, `berth mcp` relays to the session's MCP endpoint, so an agent on
 * stdio gets what an HTTP MCP client gets: the workspace tools under the session's approval
 * mode (a write asks on the session's stream) and the connected applications' tools.
 */
describe('berth mcp with the daemon address: the session workspace and application tools on stdio', { timeout: 120_000 }, () => {
  let s: Stack;
  let tab: OpenedTab;
  let client: Client;
  let events: EventReader;
  let app: BerthApp;
  before(async () => {
    s = await startStack({ files: { 'hello.txt': 'hello over stdio\n' }, config: { sessionIdleTimeoutMs: 0 } });
    tab = await openTab(s.daemon);
    const token = (await s.daemon.daemon.core.tokens.createAppToken('stdio-app', 'read')).token;
    app = await connect(s.daemon.url, token, {
      tools: [
        {
          id: 'clock.echo',
          description: 'Echo a text',
          category: 'clock',
          policy: 'read',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
          handler: ({ text: said }) => ({ echoed: said }),
        },
      ],
    });
    const primary = s.daemon.daemon.core.workspaces.primary().id;
    await until(() => s.daemon.daemon.core.tools.applications.list(primary).some((t) => t.name === 'clock.echo'), 'the application tool');
    events = await EventReader.open(s.daemon, tab.sessionId);
    const env = await s.daemon.daemon.core.messaging.externalAgentEnv(tab.sessionId);
    client = new Client({ name: 'outside-agent', version: '1' });
    await client.connect(berthMcp({ ...(process.env as Record<string, string>), BERTH_LOG_LEVEL: 'warn', ...env, BERTH_URL: s.daemon.url }));
  });
  after(async () => {
    await client?.close();
    events?.close();
    await app?.close();
    await s?.close();
  });

  it('lists the tabs, the workspace tools and the application tool', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of ['tabs_list', 'tabs_peek', 'workspace_read', 'workspace_write', 'clock.echo']) assert.ok(names.includes(name), `${name}: ${names.join(', ')}`);
  });

  it('a write asks on the session stream: approved it is on disk once, rejected it is not', async () => {
    const approved = client.callTool({ name: 'workspace_write', arguments: { path: 'yes.txt', content: 'one\n', expectedSha256: null } });
    const asked = await events.type('permission_request', (e) => e.data.toolCall?.rawInput?.path === 'yes.txt');
    assert.equal(existsSync(join(s.daemon.workspace, 'yes.txt')), false, 'nothing before the vote');
    assert.equal((await s.daemon.json('POST', `/session/${tab.sessionId}/permission/${asked.data.requestId}`, select('proceed_once'))).status, 200);
    assert.equal((await approved).isError, false);
    assert.equal(readFileSync(join(s.daemon.workspace, 'yes.txt'), 'utf8'), 'one\n');

    const rejected = client.callTool({ name: 'workspace_write', arguments: { path: 'no.txt', content: 'two\n', expectedSha256: null } });
    const again = await events.type('permission_request', (e) => e.data.toolCall?.rawInput?.path === 'no.txt');
    assert.equal((await s.daemon.json('POST', `/session/${tab.sessionId}/permission/${again.data.requestId}`, select('cancel'))).status, 200);
    assert.equal((await rejected).isError, true);
    assert.equal(existsSync(join(s.daemon.workspace, 'no.txt')), false);
  });

  it('a read and an application tool run without asking; an unknown tool is an error', async () => {
    const asked = events.seen.filter((e) => e.type === 'permission_request').length;
    const read = await client.callTool({ name: 'workspace_read', arguments: { path: 'hello.txt' } });
    assert.match(text(read), /hello over stdio/);
    const echoed = await client.callTool({ name: 'clock.echo', arguments: { text: 'tick' } });
    assert.equal(echoed.isError, false, text(echoed));
    assert.match(text(echoed), /tick/);
    assert.equal(events.seen.filter((e) => e.type === 'permission_request').length, asked);
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /unknown_tool/);
  });

  it('joins a tab with --session through the client API and serves its workspace tools', async () => {
    const joiner = new Client({ name: 'second-terminal', version: '1' });
    const env: Record<string, string> = { ...(process.env as Record<string, string>), BERTH_LOG_LEVEL: 'warn' };
    for (const name of ['BERTH_MODULE_TOKEN', 'BERTH_MODULE_SOCKET', 'BERTH_MODULE_SESSION', 'BERTH_URL']) delete env[name];
    await joiner.connect(berthMcp(env, ['--session', tab.sessionId, '--url', s.daemon.url]));
    try {
      const read = await joiner.callTool({ name: 'workspace_read', arguments: { path: 'hello.txt' } });
      assert.equal(read.isError, false, text(read));
      assert.match(text(read), /hello over stdio/);
    } finally {
      await joiner.close();
    }
  });

  it('with a token that is not this tab’s, the daemon refuses and the agent gets an error, not tools', async () => {
    const stranger = new Client({ name: 'stranger', version: '1' });
    const env = { BERTH_MODULE_TOKEN: 'berth_mod_not-a-token', BERTH_MODULE_SESSION: tab.sessionId, BERTH_URL: s.daemon.url };
    const transport = berthMcp({ ...(process.env as Record<string, string>), BERTH_LOG_LEVEL: 'warn', ...env }, [], 'pipe');
    await assert.rejects(stranger.connect(transport), /could not be asked|401|nauthorized/);
    await stranger.close();
  });
});
