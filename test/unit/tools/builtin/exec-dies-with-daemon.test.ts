import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

const repoRoot = new URL('../../../..', import.meta.url).pathname;
const fixture = new URL('../fixtures/exec-then-die.ts', import.meta.url).pathname;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('the commands a SIGKILLed daemon started die with it instead of running on', async () => {
  const daemon = spawn(process.execPath, ['--import', 'tsx', fixture], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    daemon.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out);
    });
    daemon.once('exit', () => reject(new Error(`the fixture exited early: ${out}`)));
  });
  const [, shell, sleeper] = /pids (\d+) (\d+)/.exec(line)!.map(Number);
  assert.ok(alive(shell!) && alive(sleeper!), 'the command is running');
  daemon.kill('SIGKILL');
  await new Promise((r) => daemon.once('exit', r));
  const started = Date.now();
  while ((alive(shell!) || alive(sleeper!)) && Date.now() - started < 8000) await new Promise((r) => setTimeout(r, 100));
  const took = Date.now() - started;
  process.stdout.write(`# the command group was gone ${took} ms after the SIGKILL\n`);
  for (const pid of [shell!, sleeper!]) {
    if (alive(pid)) process.kill(-shell!, 'SIGKILL');
  }
  assert.ok(took < 8000, 'the command outlived its daemon');
});
