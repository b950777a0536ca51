import { readdirSync, readFileSync } from 'node:fs';

/**
 * Pids of the agent processes a daemon started: their command line names `marker` and their HOME
 * is under `berthHome`. The bubblewrap processes around a sandboxed agent name it too; they are left out.
 */
export function agentPids(berthHome: string, marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const env = readFileSync(`/proc/${name}/environ`, 'utf8');
      const program = cmd.split('\0')[0] ?? '';
      if (cmd.includes(marker) && env.includes(`HOME=${berthHome}`) && !program.endsWith('bwrap')) pids.push(Number(name));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}

/** Whether a process still runs: it exists and is not a zombie waiting to be reaped. */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
