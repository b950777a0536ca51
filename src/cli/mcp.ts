import type { Command } from 'commander';
import { MODULE_SESSION_ENV, MODULE_TOKEN_ENV } from '../messaging/agent-env.js';
import { askModule } from '../modules/client.js';
import type { BridgeTarget } from '../mcpserve/stdio-bridge.js';
import { TAB_TOOLS, tabRequest, tabResult } from '../mcpserve/tabs.js';
import { resolveAccess, withAccess, type AccessOptions } from './module-access.js';

/**
 * `berth mcp`: an MCP server on stdio for an agent Berth does not host — a
 * Claude Code in a terminal, an agent in a container (issue 15). It speaks
 * for one tab: the token of the environment an external agent is given
 * ($BERTH_MODULE_*), flags, or `--session` to join a session's tab through
 * the client API.
 *
 * When it knows the daemon's address (`--url`, `$BERTH_URL`, or `--session`
 * joining through it) it relays to the session's MCP endpoint
 * (`POST /session/{id}/mcp`, src/mcpserve/endpoint.ts), so the agent gets
 * what an HTTP MCP client gets: the tabs, the workspace tools under the
 * session's approval mode, and the connected applications' tools. Without
 * one (an agent that reaches only the workspace socket) it serves the tab
 * tools alone, each call one question on the module socket.
 */
export function registerMcp(program: Command): void {
  withAccess(
    program
      .command('mcp')
      .description(
        "Serve a session to an agent Berth does not host, as an MCP server on stdio: its tabs, and with the daemon's address its workspace and application tools too.",
      ),
    { json: false },
  ).action(async (opts: AccessOptions) => {
    const target = await relayTarget(opts);
    if (target) return relayStdio(target, (message) => process.stderr.write(`${message}\n`));
    await serveTabsOnSocket(await resolveAccess(opts, 'berth mcp'));
  });
}

/**
 * The session endpoint to relay to, when the daemon's address is known: given
 * with a token and its session (an agent in a container needs no module
 * socket then), or the address `--session` joins the tab through.
 */
async function relayTarget(opts: AccessOptions): Promise<BridgeTarget | undefined> {
  const url = opts.url ?? process.env.BERTH_URL;
  const token = opts.token ?? process.env[MODULE_TOKEN_ENV];
  const sessionId = opts.session ?? process.env[MODULE_SESSION_ENV];
  if (url && token && sessionId) return { url, token, sessionId };
  if (token || !opts.session) return undefined;
  const joined = await resolveAccess(opts, 'berth mcp');
  return { url: joined.joinedAt!, token: joined.token, sessionId: opts.session };
}

async function relayStdio(target: BridgeTarget, onError: (message: string) => void): Promise<void> {
  const bridge = await import('../mcpserve/stdio-bridge.js');
  await bridge.relayStdio(target, onError);
}

/** The tab tools alone, each call one question on the workspace's module socket. */
async function serveTabsOnSocket(access: { socket: string; token: string; session: string | undefined }): Promise<void> {
  const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([
    import('../mcpserve/server.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const server = createMcpServer({
    list: () => [...TAB_TOOLS],
    async call(name, args) {
      const request = tabRequest(name, args);
      if (!request) return { content: [{ type: 'text', text: `No tool named ${name}` }], isError: true };
      const question = { token: access.token, ...(access.session ? { session: access.session } : {}), ...request };
      return tabResult(await askModule(access.socket, question));
    },
  });
  await server.connect(new StdioServerTransport());
}
