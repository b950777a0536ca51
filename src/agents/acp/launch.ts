import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath, type AgentSpec } from '../../config/agents.js';
import type { McpServerSpec } from '../../config/mcp-servers.js';
import type { Logger } from '../../log.js';
import type { LocalWorkspace } from '../../workspace/types.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { CommandConfinement } from '../../tools/builtin/commands/confinement.js';
import { programEnv } from './known-programs.js';
import type { AgentModuleAccess, AgentModules } from './modules.js';

/** Everything needed to start one agent process. */
export interface AgentLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The sandbox program and its arguments, or empty. */
  readonly wrapper: readonly string[];
}

export interface LaunchContext {
  /** `$BERTH_HOME`: private agent homes live under it. */
  readonly berthHome: string;
  readonly confinement: CommandConfinement;
  /** The daemon's PATH, where a bare command name is looked up. */
  readonly path: string | undefined;
  /** The MCP servers a local workspace names (the built-in agent's, src/mcp/hub.ts), given to its agent sessions. */
  readonly mcpServers?: (workspace: LocalWorkspace) => readonly McpServerSpec[];
  /** Says which of those an agent could not be given. */
  readonly log?: Logger;
  /** The module protocol's socket and token for an agent process (absent: none, as in unit tests). */
  readonly modules?: AgentModules;
}

/** The agent's own HOME: its settings, caches and sessions, never the user's (issue 12). */
export function privateHome(berthHome: string, agentId: string): string {
  return join(berthHome, 'agents', agentId, 'home');
}

/**
 * Where an agent process of a remote workspace runs (docs/agents.md, Remote
 * workspaces): a private, empty folder on this machine standing for the
 * owner's project. Its paths are what the agent names in `fs/*` and
 * `terminal/*`, which Berth maps onto the project through the gateway channel.
 */
export function remoteStandIn(berthHome: string, agentId: string, workspaceId: string): string {
  // `ws-` keeps an id such as `..` a plain name.
  const dir = join(berthHome, 'agents', agentId, 'remote', `ws-${workspaceId}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/**
 * How one agent process of a local workspace starts: its command found on
 * PATH (a clear error naming it otherwise), a scrubbed environment with a
 * private HOME, what its program needs to run as under its own daemon
 * (known-programs.ts), the spec's own variables, the module protocol's variables
 * (its socket reachable inside the sandbox), and the same sandbox as the
 * workspace's commands when one is available.
 */
export function agentLaunch(
  spec: AgentSpec,
  workspace: { id: string; root: string },
  cwd: string,
  ctx: LaunchContext,
  modules: AgentModuleAccess | null = null,
): AgentLaunch {
  const extraEnv = modules?.env ?? {};
  const command = findOnPath(spec.command, ctx.path);
  if (command === null) {
    throw new BerthError('agent_unavailable', `The agent ${spec.id} cannot start: its command "${spec.command}" is not installed (not found on PATH)`, {
      agentId: spec.id,
      command: spec.command,
    });
  }
  const home = privateHome(ctx.berthHome, spec.id);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const start = spec.cwdMode === 'home' ? home : cwd;
  const base = ctx.confinement.agentLaunch(workspace, start, home, [command, ...spec.args], modules?.reach ?? []);
  const env: NodeJS.ProcessEnv = { ...base.env, ...programEnv(command, spec.args), ...spec.env, ...extraEnv, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  for (const name of Object.keys(env)) if (name.startsWith('BERTH_') && !(name in extraEnv)) delete env[name];
  return { command, args: spec.args, cwd: start, env, wrapper: base.wrapper };
}
