import { spawn, type ChildProcess } from 'node:child_process';
import { shellArgsDyingWith } from './die-with-daemon.js';

/** The shell `workspace_exec` runs commands with (also reported by `workspace_info`). */
export const EXEC_SHELL = '/bin/sh';

/**
 * Starts `command` under the shell as the leader of a new session and process
 * group (detached → setsid), so the whole tree it spawns can be signalled at
 * once and none of it has a terminal to prompt on.
 */
export function spawnGroup(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  onError: (err: Error) => void,
): ChildProcess {
  const child = spawn(EXEC_SHELL, shellArgsDyingWith(EXEC_SHELL, command), { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
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
 * The environment commands get: the daemon's own, minus Berth's settings
 * (`BERTH_TOKEN` must never reach a command an agent wrote), with pagers that
 * do not wait for a keypress nobody can send.
 */
export function defaultCommandEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (!key.startsWith('BERTH_')) env[key] = value;
  }
  env.PAGER = 'cat';
  env.GIT_PAGER = 'cat';
  return env;
}
