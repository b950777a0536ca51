import { spawn, type ChildProcess } from 'node:child_process';

/**
 * One long-lived `bash`, fed commands one at a time like a person at a
 * terminal: `cd`, variables and functions carry from one command to the next.
 * Each answer is the command's output (stdout and stderr together) and its
 * exit code, read up to a marker line the shell prints after it.
 */
export class ShellSession {
  private readonly child: ChildProcess;
  private buffer = '';
  private waiter: (() => void) | null = null;
  private readonly exited: Promise<void>;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const onData = (d: Buffer) => {
      this.buffer += d.toString();
      this.waiter?.();
    };
    this.child.stdout!.on('data', onData);
    this.child.stderr!.on('data', onData);
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    void this.exited.then(() => this.waiter?.());
  }

  /** Runs one command line and returns what it printed and its exit code. */
  async run(command: string): Promise<{ code: number; output: string }> {
    const marker = `__berth_readme_done_${Math.random().toString(36).slice(2)}__`;
    this.buffer = '';
    this.child.stdin!.write(`${command}\n__rc=$?; printf '\\n${marker} %s\\n' "$__rc"\n`);
    const pattern = new RegExp(`\\n${marker} (\\d+)\\n`);
    for (;;) {
      const m = pattern.exec(this.buffer);
      if (m) return { code: Number(m[1]), output: this.buffer.slice(0, m.index) };
      if (this.child.exitCode !== null) throw new Error(`the shell exited while running: ${command}\n${this.buffer}`);
      await new Promise<void>((resolve) => (this.waiter = resolve));
      this.waiter = null;
    }
  }

  async close(): Promise<void> {
    if (this.child.exitCode === null) {
      this.child.stdin!.end('exit\n');
      await this.exited;
    }
  }
}
