import { spawn, type ChildProcess } from 'node:child_process';
import { commandEnv } from './command-env.js';
import { shellArgsDyingWith } from './die-with-daemon.js';

/** The shell `workspace_exec` runs commands with (also reported by `workspace_info`). */
export const EXEC_SHELL = '/bin/sh';

/**
 * Starts `command` under the shell as the leader of a new session and process
 * group (detached → setsid), so the whole tree it spawns can be signalled at
 * once and none of it has a terminal to prompt on. A `wrapper` (the sandbox,
 * see confinement.ts) is the program that runs the shell, leading the group.
 */
export function spawnGroup(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  onError: (err: Error) => void,
  wrapper: readonly string[] = [],
): ChildProcess {
  // In a sandbox, bubblewrap's --die-with-parent ties the command to the daemon, and the
  // watcher could not see the daemon's pid from inside its pid namespace anyway.
  const shellArgs = wrapper.length > 0 ? ['-c', command] : shellArgsDyingWith(EXEC_SHELL, command);
  const [file, ...args] = [...wrapper, EXEC_SHELL, ...shellArgs];
  const child = spawn(file!, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  child.on('error', onError);
  return child;
}

/** Signals every process in the group led by `pid`; false when none is left. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * The environment commands get when no workspace settings apply: the daemon's
 * harmless variables only (see command-env.ts), never `BERTH_*` nor model keys.
 */
export function defaultCommandEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return commandEnv(base);
}
