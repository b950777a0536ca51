import type { Command } from 'commander';
import { MESSAGING_TOOL_DEFINITIONS } from '../messaging/index.js';
import { TABS_INBOX_TOOL, TABS_LIST_TOOL, TABS_SEND_TOOL } from '../messaging/header.js';
import { askModule } from '../modules/client.js';
import { resolveAccess, withAccess, type AccessOptions } from './module-access.js';

/** `tabs_peek`: only for agents outside Berth, whose messages never arrive as a prompt. */
const TABS_PEEK = {
  name: 'tabs_peek',
  description: 'Show the messages other tabs sent you that are waiting, without taking them.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true },
};

/** MCP tool name → the module operation it asks, with the fields it passes on. */
const OPERATIONS: Record<string, (args: Record<string, unknown>) => Record<string, unknown>> = {
  [TABS_LIST_TOOL]: () => ({ op: 'list' }),
  [TABS_SEND_TOOL]: (a) => ({ op: 'send', tab: String(a.tab), text: String(a.text), kind: typeof a.kind === 'string' ? a.kind : 'info' }),
  [TABS_INBOX_TOOL]: () => ({ op: 'inbox' }),
  [TABS_PEEK.name]: () => ({ op: 'peek' }),
};

/**
 * `berth mcp`: the module protocol as an MCP server on stdio (issue 15), for an
 * agent Berth does not host — a Claude Code in a terminal, an agent in a
 * container — so it can see the workspace's tabs, message them and read its
 * inbox as tools. It speaks for one tab: the token of the environment an
 * external agent is given ($BERTH_MODULE_*), flags, or `--session` to join a
 * session's tab through the client API. Each call is one question on the
 * module socket; the daemon's answer text is the tool's result.
 */
export function registerMcp(program: Command): void {
  withAccess(
    program
      .command('mcp')
      .description('Serve the workspace tabs (tabs_list, tabs_send, tabs_inbox, tabs_peek) as an MCP server on stdio for an agent Berth does not host.'),
    { json: false },
  ).action(async (opts: AccessOptions) => {
    const access = await resolveAccess(opts, 'berth mcp');
    const [{ Server }, { StdioServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const server = new Server({ name: 'berth-tabs', version: '1' }, { capabilities: { tools: {} } });
    const tools = [
      ...MESSAGING_TOOL_DEFINITIONS.map((d) => ({ name: d.name, title: d.title, description: d.description, inputSchema: d.inputSchema, annotations: d.annotations })),
      TABS_PEEK,
    ];
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const operation = OPERATIONS[request.params.name];
      if (!operation) return { content: [{ type: 'text', text: `No tool named ${request.params.name}` }], isError: true };
      const question = { token: access.token, ...(access.session ? { session: access.session } : {}), ...operation(request.params.arguments ?? {}) };
      const answer = await askModule(access.socket, question);
      return { content: [{ type: 'text', text: answer.text }], structuredContent: answer as unknown as Record<string, unknown>, isError: !answer.ok };
    });
    await server.connect(new StdioServerTransport());
  });
}
