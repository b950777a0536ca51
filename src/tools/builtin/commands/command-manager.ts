import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../clock.js';
import { COMMAND_RETENTION_MS, EXEC_KILL_GRACE_MS, MAX_COMMANDS_PER_SESSION, MAX_COMMAND_OUTPUT_BYTES } from '../../limits.js';
import { BerthError } from '../../../protocol/errors/index.js';
import type { CommandConfinement, ConfinedWorkspace } from './confinement.js';
import { defaultCommandEnv } from './spawn-group.js';
import { WorkspaceCommand } from './workspace-command.js';

export interface CommandManagerOptions {
  readonly clock: Clock;
  /** Environment for every command when no confinement applies; defaults to the daemon's harmless variables. */
  readonly env?: NodeJS.ProcessEnv;
  /** Per-workspace environment and sandbox (issue 16); the daemon always gives one. */
  readonly confinement?: CommandConfinement;
  readonly maxOutputBytes?: number;
  readonly retentionMs?: number;
  readonly maxPerSession?: number;
  readonly killGraceMs?: number;
  /** Command ids; UUID v4 by default (docs/gateway.md `commandId` pattern). */
  readonly newId?: () => string;
}

export interface StartCommand {
  readonly owner: string | null;
  readonly command: string;
  readonly cwdAbs: string;
  readonly cwdRel: string;
  readonly timeoutMs: number;
  /** The workspace it runs in; with a confinement, decides its environment and what its sandbox sees. */
  readonly workspace?: ConfinedWorkspace;
}

/**
 * The commands `workspace_exec` started, owned by the session that started
 * them (docs/gateway.md: "an owned command id"). Bounded three ways: output per
 * command (a tail), finished commands are reaped after the retention, and a
 * session keeps at most `maxPerSession` commands (the oldest finished one
 * makes room; if all are running the start is refused). Reaping happens
 * whenever the manager is used, reading the injected clock.
 */
export class CommandManager {
  private readonly commands = new Map<string, WorkspaceCommand>();
  private readonly env: NodeJS.ProcessEnv;
  private readonly maxOutputBytes: number;
  private readonly retentionMs: number;
  private readonly maxPerSession: number;
  private readonly killGraceMs: number;
  private readonly newId: () => string;
  private disposed: Promise<void> | null = null;

  constructor(private readonly options: CommandManagerOptions) {
    this.env = options.env ?? defaultCommandEnv();
    this.maxOutputBytes = options.maxOutputBytes ?? MAX_COMMAND_OUTPUT_BYTES;
    this.retentionMs = options.retentionMs ?? COMMAND_RETENTION_MS;
    this.maxPerSession = options.maxPerSession ?? MAX_COMMANDS_PER_SESSION;
    this.killGraceMs = options.killGraceMs ?? EXEC_KILL_GRACE_MS;
    this.newId = options.newId ?? randomUUID;
  }

  /** Starts a command; rejects with `spawn_failed` (and remembers nothing) when the shell cannot be started. */
  async start(req: StartCommand): Promise<WorkspaceCommand> {
    if (this.disposed) throw new BerthError('daemon_shutdown', 'commands cannot start while the daemon shuts down');
    this.reap();
    this.makeRoom(req.owner);
    const now = this.options.clock.now();
    const launch =
      this.options.confinement && req.workspace
        ? this.options.confinement.launch(req.workspace, req.cwdAbs)
        : { env: this.env, wrapper: [] };
    const command = new WorkspaceCommand({
      id: this.newId(),
      owner: req.owner,
      command: req.command,
      cwdAbs: req.cwdAbs,
      cwdRel: req.cwdRel,
      timeoutMs: req.timeoutMs,
      env: launch.env,
      wrapper: launch.wrapper,
      maxOutputBytes: this.maxOutputBytes,
      killGraceMs: this.killGraceMs,
      startedAt: now,
      now: () => this.options.clock.now(),
    });
    this.commands.set(command.id, command);
    try {
      await command.started;
    } catch (err) {
      this.commands.delete(command.id);
      throw err;
    }
    return command;
  }

  /**
   * The command `id` if `owner` started it. Another session's command is
   * answered exactly like a missing one (`unknown_command`), so ids do not
   * leak across sessions.
   */
  get(owner: string | null, id: string): WorkspaceCommand {
    this.reap();
    const command = this.commands.get(id);
    if (!command || command.owner !== owner) {
      throw new BerthError('unknown_command', `no command ${id} in this session`, { commandId: id }, 'use a command id returned by workspace_exec in this session');
    }
    return command;
  }

  /** Stops and forgets every command of a session (the session closed). */
  async releaseSession(owner: string | null): Promise<void> {
    const mine = [...this.commands.values()].filter((c) => c.owner === owner);
    for (const c of mine) this.commands.delete(c.id);
    await Promise.all(mine.map((c) => c.stop()));
  }

  /** How many commands are remembered (running or finished). */
  get size(): number {
    return this.commands.size;
  }

  /** Kills every running command and waits for them; later calls return the same promise. */
  dispose(): Promise<void> {
    this.disposed ??= Promise.all([...this.commands.values()].map((c) => c.stop())).then(() => {
      this.commands.clear();
    });
    return this.disposed;
  }

  private reap(): void {
    const now = this.options.clock.now();
    for (const [id, c] of this.commands) {
      if (c.finishedAt !== null && now - c.finishedAt >= this.retentionMs) this.commands.delete(id);
    }
  }

  private makeRoom(owner: string | null): void {
    const mine = [...this.commands.values()].filter((c) => c.owner === owner);
    if (mine.length < this.maxPerSession) return;
    const oldestFinished = mine
      .filter((c) => c.finishedAt !== null)
      .sort((a, b) => (a.finishedAt as number) - (b.finishedAt as number))[0];
    if (!oldestFinished) {
      throw new BerthError('command_limit_exceeded', `this session already runs ${mine.length} commands`, { limit: this.maxPerSession }, 'stop a command with workspace_stop or wait for one to finish');
    }
    this.commands.delete(oldestFinished.id);
  }
}
