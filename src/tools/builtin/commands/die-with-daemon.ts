/**
 * Commands die with the daemon. A command runs in a process group of its own
 * (so it can be stopped whole), which also means nothing ends it when the
 * daemon is killed: a SIGKILLed daemon left its commands running with no
 * timeout. So the shell first starts a watcher inside the command's group,
 * then becomes the command's shell (`exec`, so its pid, exit status and
 * signals are the command's own). The watcher checks once a second that the
 * daemon is still alive and, once it is not, kills the whole group, itself
 * included. It holds none of the command's pipes, and ends with the group when
 * the command is stopped or finishes. Plain POSIX sh: no addon, no build step.
 */
export const DAEMON_WATCH_INTERVAL_S = 1;

/** The arguments for `/bin/sh` that run `command` under a watcher of `daemonPid`. */
export function shellArgsDyingWith(shell: string, command: string, daemonPid: number = process.pid): string[] {
  const watcher =
    `(trap '' HUP INT; while kill -0 ${daemonPid} 2>/dev/null; do sleep ${DAEMON_WATCH_INTERVAL_S}; done; kill -KILL 0)` +
    ' </dev/null >/dev/null 2>&1 &';
  // `$1` is the command, passed as an argument so its text is never re-quoted.
  return ['-c', `${watcher} exec ${shell} -c "$1"`, 'berth-exec', command];
}
