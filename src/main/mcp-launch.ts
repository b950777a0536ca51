import type { McpStdioSpec } from '../config/mcp-servers.js';
import type { McpLaunch } from '../mcp/connection.js';
import type { CommandConfinement } from '../tools/builtin/commands/confinement.js';
import type { LocalWorkspace } from '../workspace/types.js';

/**
 * How a stdio MCP server of a workspace starts. A server the workspace names
 * in its own `.berth/mcp.json` is code from the project, so it runs exactly as
 * the workspace's commands do: scrubbed environment, and the sandbox where
 * there is one. A server of the daemon's own config is the owner's choice and
 * runs as configured (its `env` added to a minimal inherited one), in the
 * workspace root unless it names a `cwd`.
 */
export function mcpLaunch(confinement: CommandConfinement) {
  return (workspace: LocalWorkspace, spec: McpStdioSpec): McpLaunch => {
    const cwd = spec.cwd ?? workspace.root;
    if (spec.origin === 'home') return { command: spec.command, args: spec.args, env: { ...spec.env }, cwd };
    const launch = confinement.launch({ id: workspace.id, root: workspace.root }, workspace.root, [spec.command, ...spec.args]);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(launch.env)) if (v !== undefined) env[k] = v;
    Object.assign(env, spec.env);
    const [wrapper, ...wrapperArgs] = launch.wrapper;
    return wrapper === undefined
      ? { command: spec.command, args: spec.args, env, cwd: workspace.root }
      : { command: wrapper, args: [...wrapperArgs, spec.command, ...spec.args], env, cwd: workspace.root };
  };
}
