import type * as acp from '@agentclientprotocol/sdk';
import { resolve } from 'node:path';
import { findOnPath } from '../../config/agents.js';
import type { McpServerSpec } from '../../config/mcp-servers.js';

/** The servers of one session as the agent is given them, and those it could not be given, with why. */
export interface AgentMcpServers {
  readonly servers: acp.McpServer[];
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
}

/**
 * The MCP servers a session's workspace names (the home config and its
 * `.berth/mcp.json`, as the built-in agent gets them), in ACP's shape for
 * `session/new` and `session/load` (docs/agents.md). Every agent takes stdio
 * servers; an http one only when the agent's `initialize` answer says
 * `mcpCapabilities.http`. ACP wants an absolute command and has no working
 * directory: a bare name is looked up on PATH, a relative path taken from the
 * server's `cwd` (else the workspace root), and the server starts where the
 * agent runs.
 */
export function agentMcpServers(
  specs: readonly McpServerSpec[],
  caps: acp.McpCapabilities | null | undefined,
  where: { readonly root: string; readonly path: string | undefined },
): AgentMcpServers {
  const servers: acp.McpServer[] = [];
  const skipped: { name: string; reason: string }[] = [];
  for (const spec of specs) {
    if (spec.transport === 'http') {
      if (caps?.http !== true) {
        skipped.push({ name: spec.name, reason: 'the agent does not take http MCP servers (mcpCapabilities.http)' });
        continue;
      }
      servers.push({ type: 'http', name: spec.name, url: spec.url, headers: Object.entries(spec.headers).map(([name, value]) => ({ name, value })) });
      continue;
    }
    const command = spec.command.includes('/') ? resolve(spec.cwd ?? where.root, spec.command) : findOnPath(spec.command, where.path);
    if (command === null) {
      skipped.push({ name: spec.name, reason: `its command "${spec.command}" is not on PATH` });
      continue;
    }
    servers.push({ name: spec.name, command, args: [...spec.args], env: Object.entries(spec.env).map(([name, value]) => ({ name, value })) });
  }
  return { servers, skipped };
}
