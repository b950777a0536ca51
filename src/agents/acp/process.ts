import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { STDERR_TAIL_CHARS, AGENT_KILL_GRACE_MS } from './limits.js';
import type { AgentLaunch } from './launch.js';

/** How the process ended. */
export interface ProcessExit {
  readonly exitCode: number | null;
  readonly signalCode: string | null;
}

/**
 * One agent process: the leader of its own process group (so everything it
 * starts is signalled with it), its stdio as the web streams the ACP SDK
 * reads, the tail of its stderr for error messages, and one idempotent kill.
 */
export class AgentProcess {
  readonly exited: Promise<ProcessExit>;
  private readonly child: ChildProcess;
  private stderrTail = '';
  private exitInfo: ProcessExit | null = null;
  private spawnError: Error | null = null;

  constructor(launch: AgentLaunch) {
    const [file, ...args] = [...launch.wrapper, launch.command, ...launch.args];
    this.child = spawn(file!, args, { cwd: launch.cwd, env: launch.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        this.spawnError = err;
        // A process that never started emits no 'exit'.
        if (this.child.pid === undefined) resolve((this.exitInfo = { exitCode: null, signalCode: null }));
      });
      this.child.once('exit', (exitCode, signalCode) => resolve((this.exitInfo = { exitCode, signalCode })));
    });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (d: string) => {
      this.stderrTail = (this.stderrTail + d).slice(-STDERR_TAIL_CHARS);
    });
    // A write to a process that is gone is reported by 'exit'; the pipe error itself adds nothing.
    this.child.stdin!.on('error', () => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitInfo === null;
  }

  /** Why it could not start (ENOENT, EACCES), once known. */
  get startError(): Error | null {
    return this.spawnError;
  }

  get stderr(): string {
    return this.stderrTail;
  }

  /** stdin and stdout as the SDK's ndJsonStream wants them. */
  streams(): { input: WritableStream<Uint8Array>; output: ReadableStream<Uint8Array> } {
    return {
      input: Writable.toWeb(this.child.stdin!) as WritableStream<Uint8Array>,
      output: Readable.toWeb(this.child.stdout!) as ReadableStream<Uint8Array>,
    };
  }

  /** SIGTERM to the whole group, SIGKILL after a grace period; resolves once the leader is gone. Idempotent. */
  async kill(): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined || !this.alive) return;
    signalGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), AGENT_KILL_GRACE_MS);
    timer.unref();
    await this.exited;
    clearTimeout(timer);
    // What the leader left behind (a shell command it started) goes with it.
    signalGroup(pid, 'SIGKILL');
  }

  /** Resident memory of every process of its group, in bytes (Linux `/proc`; 0 elsewhere). */
  rssBytes(): number {
    const pid = this.child.pid;
    return pid === undefined || !this.alive ? 0 : groupRss(pid);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is gone */
  }
}

const PAGE_BYTES = 4096;

/** Sums `/proc/<pid>/statm` resident pages over the processes whose group is `pgid`. */
export function groupRss(pgid: number): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the parenthesised command: state ppid pgrp …
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      total += Number(readFileSync(`/proc/${name}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
    } catch {
      /* the process ended meanwhile */
    }
  }
  return total;
}
