import { realpathSync } from 'node:fs';
import type { WorkspaceSettings } from '../../../config/workspace-settings.js';
import { commandEnv } from './command-env.js';
import { installRoots } from './install-roots.js';
import { sandboxArgs, type SandboxProbe } from './sandbox.js';

/** A local workspace as the confinement needs it. */
export interface ConfinedWorkspace {
  readonly id: string;
  readonly root: string;
}

/** How one command starts: its environment, and the program (with arguments) that wraps the shell, if any. */
export interface CommandLaunch {
  readonly env: NodeJS.ProcessEnv;
  readonly wrapper: readonly string[];
}

export interface ConfinementOptions {
  /** Asked when a command starts, not when the daemon does: the machine's probe runs once the port is open. */
  readonly sandbox: () => SandboxProbe;
  /** The Berth home: never visible to a command. */
  readonly home: string;
  /** Every local workspace: each command sees its own and none of the others. */
  readonly workspaces: readonly ConfinedWorkspace[];
  /** Settings keyed by workspace root or id (Config.workspaceSettings). */
  readonly settings: Readonly<Record<string, WorkspaceSettings>>;
  /** The daemon's environment the allow-list picks from. */
  readonly baseEnv?: NodeJS.ProcessEnv;
}

/** What `/capabilities` says about how commands run (additions only). */
export interface ConfinementReport {
  readonly sandbox: 'bubblewrap' | null;
  readonly reason?: string;
  /** Workspace ids whose commands run without network. */
  readonly offlineWorkspaces: readonly string[];
}

/**
 * Decides how each `workspace_exec` command of a workspace runs (issue 16):
 * always with a scrubbed environment, and — where bubblewrap works — in a
 * sandbox that sees its workspace read-write, the system read-only, not the
 * home nor another workspace nor the daemon's processes, and the network only
 * when the workspace's tabs are networked.
 */
export class CommandConfinement {
  private readonly byId = new Map<string, WorkspaceSettings>();
  private readonly home: string;

  constructor(private readonly options: ConfinementOptions) {
    this.home = canonical(options.home);
    for (const ws of options.workspaces) {
      const key = Object.keys(options.settings).find((k) => k === ws.id || canonical(k) === ws.root);
      if (key !== undefined) this.byId.set(ws.id, options.settings[key]!);
    }
  }

  get sandboxed(): boolean {
    return this.options.sandbox().available;
  }

  /**
   * Whether a tab of this workspace reaches the network (seed 004's rule).
   * Without a sandbox nothing takes the network away, so it is true whatever
   * the settings say. Settings that allow it answer without the sandbox probe:
   * a session opened right after start-up does not wait for bubblewrap's trial run.
   */
  networkOf(workspaceId: string): boolean {
    if (this.byId.get(workspaceId)?.network ?? true) return true;
    return !this.options.sandbox().available;
  }

  /** Workspaces configured without network that run with it anyway, because there is no sandbox. */
  unenforcedOffline(): string[] {
    if (this.options.sandbox().available) return [];
    return [...this.byId].filter(([, s]) => s.network === false).map(([id]) => id);
  }

  /** `argv`: a program run directly rather than a shell command (an MCP server), whose install stays readable. */
  launch(workspace: ConfinedWorkspace, cwdAbs: string, argv: readonly string[] = []): CommandLaunch {
    const env = commandEnv(this.options.baseEnv ?? process.env, this.byId.get(workspace.id));
    const probe = this.options.sandbox();
    if (!probe.available) return { env, wrapper: [] };
    const hidden = [this.home, ...this.options.workspaces.filter((w) => w.id !== workspace.id).map((w) => w.root)];
    const view = { root: workspace.root, cwd: cwdAbs, hidden, network: this.networkOf(workspace.id), readable: installRoots(argv) };
    const args = sandboxArgs(view);
    return { env, wrapper: [probe.path, ...args] };
  }

  /**
   * How an external agent's process starts (issue 12): the same scrubbed
   * environment and sandbox as a command of its workspace, with its private
   * HOME bound writable inside the otherwise hidden Berth home, and `reach`
   * (its workspace's module socket) bound there too.
   */
  agentLaunch(workspace: ConfinedWorkspace, cwdAbs: string, privateHome: string, argv: readonly string[] = [], reach: readonly string[] = []): CommandLaunch {
    const env = commandEnv(this.options.baseEnv ?? process.env, this.byId.get(workspace.id));
    const probe = this.options.sandbox();
    if (!probe.available) return { env, wrapper: [] };
    const hidden = [this.home, ...this.options.workspaces.filter((w) => w.id !== workspace.id).map((w) => w.root)];
    const view = { root: workspace.root, cwd: cwdAbs, hidden, network: this.networkOf(workspace.id), binds: [privateHome, ...reach], readable: installRoots(argv) };
    return { env, wrapper: [probe.path, ...sandboxArgs(view)] };
  }

  report(): ConfinementReport {
    const probe = this.options.sandbox();
    const offline = this.options.workspaces.filter((w) => !this.networkOf(w.id)).map((w) => w.id);
    return probe.available
      ? { sandbox: 'bubblewrap', offlineWorkspaces: offline }
      : { sandbox: null, reason: probe.reason, offlineWorkspaces: offline };
  }
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
