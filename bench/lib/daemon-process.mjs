// Starts a daemon as a child process in its own process group, waits for the line that says it
// listens (or, for a helper process, that it is ready), and stops it together with everything it
// forked. Used for Berth, the peer and the benchmarks' helper processes (`berth connect`, a tool
// protocol app) so they are launched, watched and stopped the same way.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { registerCleanup } from './cleanup.mjs';
import { descendants, isRunning } from './proctree.mjs';

/** How long a daemon may take to print its listening line (the peer needs ~0.5 s, see BASELINE.md). */
export const START_TIMEOUT_MS = 60_000;
/** How long a daemon gets to exit after SIGTERM before its tree is SIGKILLed. */
export const STOP_GRACE_MS = 5_000;
/** How often a stopping tree is checked for processes still running. */
const STOP_POLL_MS = 20;
/** Output kept per stream for error messages; a daemon that logs every request would grow without bound. */
const OUTPUT_TAIL_CHARS = 64 * 1024;

/**
 * Spawns `command args` and resolves once its `readyOn` stream (stdout unless said) matches `ready`
 * (a RegExp whose first group, if any, is the base URL). Both streams are read all along, so a full
 * pipe never stalls the child. With `stderrFile`, stderr goes to that file instead (readiness on stderr
 * is then polled from it): a helper that prints a line per call then costs this process nothing per
 * line, as its terminal would not. Returns `{name, pid, url, stdout(), stderr(), exited, stop()}`;
 * `stop()` is idempotent and always leaves no process of the tree behind.
 */
export async function startDaemonProcess({ name, command, args, cwd, env, ready, readyOn = 'stdout', timeoutMs = START_TIMEOUT_MS, stderrFile }) {
  // detached: a process group of its own, so one signal reaches the daemon and the children it forks.
  // `stderrFile`: stderr goes to that file instead of a pipe this process reads (see the doc above).
  const errFd = stderrFile === undefined ? undefined : openSync(stderrFile, 'a');
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', errFd ?? 'pipe'] });
  if (errFd !== undefined) closeSync(errFd);
  let out = '';
  let err = '';
  const readErr = () => (stderrFile === undefined ? err : (err = readFileSync(stderrFile, 'utf8')));
  // Cut back only once twice the tail has gathered: slicing on every chunk copied the whole tail per
  // line, which a helper printing a line per call (`berth connect`) made a cost of the measured process.
  const keep = (text, more) => {
    const joined = text + more;
    return joined.length > 2 * OUTPUT_TAIL_CHARS ? joined.slice(-OUTPUT_TAIL_CHARS) : joined;
  };
  const tail = (text) => text.slice(-OUTPUT_TAIL_CHARS);
  child.stdout.on('data', (d) => (out = keep(out, d.toString())));
  child.stderr?.on('data', (d) => (err = keep(err, d.toString())));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));

  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not print ${ready} on ${readyOn} within ${timeoutMs} ms`)), timeoutMs);
    const poll = readyOn === 'stderr' && stderrFile !== undefined ? setInterval(() => onData(), STOP_POLL_MS) : undefined;
    const onData = () => {
      const m = ready.exec(readyOn === 'stderr' ? readErr() : out);
      if (m) {
        clearTimeout(timer);
        clearInterval(poll);
        // Matched once: the rest of the output is only kept, not searched again.
        child[readyOn]?.off('data', onData);
        resolve(m[1]);
      }
    };
    const fail = (error) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`${error.message}\n--- stdout ---\n${tail(out)}\n--- stderr ---\n${tail(readErr())}`));
    };
    child[readyOn]?.on('data', onData);
    child.on('error', fail);
    void exited.then(({ code, signal }) => fail(new Error(`${name} exited (${signal ?? `code ${code}`}) before it was ready`)));
  }).catch(async (error) => {
    await stopTree(child.pid, exited);
    throw error;
  });

  let stopping;
  const stop = () => (stopping ??= stopTree(child.pid, exited).finally(() => unregister()));
  const unregister = registerCleanup(stop);
  return {
    name,
    pid: child.pid,
    url,
    stdout: () => tail(out),
    stderr: () => tail(readErr()),
    exited,
    stop,
  };
}

/** SIGTERM to the group and every known descendant, wait for all of them, then SIGKILL whatever is left. */
async function stopTree(pid, exited) {
  if (pid === undefined) return;
  // Children that left the group (setsid) are still found through /proc parentage.
  const tree = [pid, ...descendants(pid)];
  signalAll(pid, tree, 'SIGTERM');
  if (!(await allGone(tree, STOP_GRACE_MS))) {
    signalAll(pid, tree.filter(isRunning), 'SIGKILL');
    await allGone(tree, STOP_GRACE_MS);
  }
  await exited;
}

/** Polls until none of `pids` runs (zombies count as gone); false if `withinMs` passed first. */
async function allGone(pids, withinMs) {
  const deadline = Date.now() + withinMs;
  while (pids.some(isRunning)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, STOP_POLL_MS));
  }
  return true;
}

function signalAll(groupLeader, pids, signal) {
  try {
    process.kill(-groupLeader, signal);
  } catch {
    // The group is already gone.
  }
  for (const p of pids) {
    try {
      process.kill(p, signal);
    } catch {
      // Already exited.
    }
  }
}
