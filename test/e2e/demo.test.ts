import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { removeDir } from '../support/tmp.js';

/**
 * `npm run demo` (scripts/demo.mjs) run the way CI or a pipe runs it: stdin
 * is not a terminal, so it approves the permission requests itself and says so.
 */

const repoRoot = new URL('../..', import.meta.url).pathname;

interface DemoRun {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves once the output satisfies `condition` (rejects if the demo exits first). */
  until(condition: (out: string) => boolean): Promise<void>;
  readonly exit: Promise<number | null>;
}

function runDemo(args: string[]): DemoRun {
  const child = spawn(process.execPath, ['scripts/demo.mjs', '--port', '0', ...args], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exit,
    until(condition) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (condition(out)) {
            listeners.delete(check);
            resolve();
          }
        };
        listeners.add(check);
        check();
        void exit.then(() => {
          if (!condition(out)) reject(new Error(`the demo exited before the expected output:\n${out}`));
        });
      });
    },
  };
}

const pidsOf = (out: string) => [...out.matchAll(/\(pid (\d+)/g)].map((m) => Number(m[1]));
const workspaceOf = (out: string) => /workspace (\S+)\)/.exec(out)?.[1];

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm run demo', { timeout: 180_000 }, () => {
  test('runs a full turn without a terminal: both permission requests are shown and approved, the file is written, nothing is left running', async () => {
    const demo = runDemo(['--keep']);
    const code = await demo.exit;
    const out = demo.output();
    const workspace = workspaceOf(out);
    try {
      assert.equal(code, 0, out);
      assert.match(out, /permission › Write hello\.txt needs your approval \(workspace_write\)/);
      assert.match(out, /\+ Hello from Berth!/, 'the request shows the proposed content');
      assert.match(out, /permission › Run wc -l hello\.txt needs your approval \(workspace_exec\)/);
      // The check from the shell shows what the command printed, in the exec's own answer (it waits for short commands).
      assert.match(out, /tool › completed exit code 0, it printed:\n {4}│ 2 hello\.txt\n/);
      assert.doesNotMatch(out, /workspace_poll/, 'one step: no poll after the exec');
      assert.equal(out.match(/auto-approved once/g)?.length, 2);
      assert.equal(out.match(/permission › answered: proceed_once/g)?.length, 2);
      assert.match(out, /thinking › /);
      assert.match(out, /agent › I'll create hello\.txt first\./);
      assert.match(out, /turn complete › stopReason end_turn/);
      assert.match(out, /│ Hello from Berth!/, 'the file is read back through the client API');

      assert.ok(workspace, 'the demo names its workspace');
      assert.equal(
        readFileSync(join(workspace, 'hello.txt'), 'utf8'),
        'Hello from Berth!\nThis file was written by the agent after you approved it.\n',
      );
      const pids = pidsOf(out);
      assert.equal(pids.length, 2, 'the scripted model and the daemon');
      for (const pid of pids) assert.equal(isRunning(pid), false, `process ${pid} is still running`);
    } finally {
      if (workspace) removeDir(dirname(workspace));
    }
  });

  test('Ctrl-C stops both child processes and removes the temp folder', async () => {
    const demo = runDemo([]);
    await demo.until((out) => /berth › .*\(pid \d+, workspace \S+\)/.test(out));
    demo.child.kill('SIGINT');
    const code = await demo.exit;
    const out = demo.output();
    assert.equal(code, 130, out);
    const pids = pidsOf(out);
    assert.equal(pids.length, 2);
    for (const pid of pids) assert.equal(isRunning(pid), false, `process ${pid} is still running`);
    const workspace = workspaceOf(out)!;
    assert.equal(existsSync(dirname(workspace)), false, 'the temp folder is gone');
  });
});
