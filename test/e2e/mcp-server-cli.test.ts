import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openTab, until, type OpenedTab } from '../support/module.js';
import { startStack, type Stack } from '../support/stack.js';

const repoRoot = new URL('../..', import.meta.url).pathname;
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
    const env = s.daemon.daemon.core.messaging.externalAgentEnv(outside.sessionId);
    client = new Client({ name: 'outside-agent', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', join(repoRoot, 'src/cli/main.ts'), 'mcp'],
        cwd: repoRoot,
        env: { ...(process.env as Record<string, string>), BERTH_LOG_LEVEL: 'warn', ...env },
        stderr: 'inherit',
      }),
    );
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
