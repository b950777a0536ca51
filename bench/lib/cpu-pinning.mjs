// CPU affinity for a benchmark's processes (Linux, `taskset` from util-linux). A reader that
// shares a CPU with the daemon it times is woken by the daemon's own writes and preempts it in the
// middle of what is being timed; real subscribers read from other machines. Pinning the daemons to
// one CPU and the bench to the other takes the bench's work out of the daemon's time, the same way
// for every daemon.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { descendants } from './proctree.mjs';

/** Every CPU this machine has, as a taskset list. */
export const ALL_CPUS = `0-${availableParallelism() - 1}`;

/**
 * Why this machine cannot pin (one CPU, no taskset, CPUs numbered otherwise, affinity not settable
 * in this container), or undefined when it can. Tried by setting this process to every CPU, which
 * is what it has unless something pinned it already.
 */
export function pinningUnavailable() {
  if (availableParallelism() < 2) return 'one CPU only';
  try {
    execFileSync('taskset', ['-a', '-p', '-c', ALL_CPUS, String(process.pid)], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `taskset could not set this process to CPUs ${ALL_CPUS}`;
  }
}

/**
 * Sets the CPUs of every thread of `pid`, and with `tree` of its descendants too; threads and
 * processes they start later inherit it. A process that ends meanwhile is skipped.
 */
export function pin(pid, cpus, { tree = false } = {}) {
  for (const p of tree ? [pid, ...descendants(pid)] : [pid]) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', cpus, String(p)], { stdio: 'ignore' });
    } catch {
      // Gone between the listing and the call.
    }
  }
}
