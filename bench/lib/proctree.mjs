// A process and its descendants, read from /proc (Linux). Used to stop a daemon's whole tree
// (the peer forks a `qwen --acp` child) and to sum resident memory the way BASELINE.md did:
// VmRSS of the daemon pid plus every descendant.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Parent pid of every live process, from /proc/<pid>/stat. Empty off Linux. */
function parentMap() {
  const parents = new Map();
  let names;
  try {
    names = readdirSync('/proc');
  } catch {
    return parents;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name (field 2) may hold spaces and parentheses; fields after its last ')' are fixed.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(name), Number(rest[1]));
    } catch {
      // The process ended while we were looking.
    }
  }
  return parents;
}

/** Every live descendant of `pid` (children, grandchildren, …), not `pid` itself. */
export function descendants(pid) {
  const parents = parentMap();
  const children = new Map();
  for (const [child, parent] of parents) {
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(child);
  }
  const out = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

function readStatus(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(0, 4).join(' ');
    return { pid, cmd, kib: rss ? Number(rss[1]) : 0 };
  } catch {
    return null;
  }
}

/** Resident memory of `pid` and its descendants: `{totalKiB, procs: [{pid, cmd, kib}]}`. */
export function treeRss(pid) {
  const procs = [pid, ...descendants(pid)].map(readStatus).filter(Boolean);
  return { totalKiB: procs.reduce((sum, p) => sum + p.kib, 0), procs };
}

/** Alive and not a zombie (an exited child waiting for whoever inherited it to reap it). */
export function isRunning(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    if (existsSync('/proc')) return false;
    // Not Linux: signal 0 is the best available check.
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** User + system CPU time of process `pid` in µs, from /proc (Linux; clock ticks of 10 ms, so only long runs tell). */
export function cpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of stat(5); here counted from field 3 (state) as index 0.
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return Number.NaN;
  }
}
