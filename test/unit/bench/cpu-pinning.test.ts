import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const { ALL_CPUS, pin, pinningUnavailable } = (await import(new URL('../../../bench/lib/cpu-pinning.mjs', import.meta.url).href)) as {
  ALL_CPUS: string;
  pin: (pid: number, cpus: string, options?: { tree?: boolean }) => void;
  pinningUnavailable: () => string | undefined;
};

/** The CPUs a process may run on, as the kernel reports them. */
const allowed = (pid: number) => /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];

describe('the benches’ CPU pinning', { skip: pinningUnavailable() }, () => {
  it('pins a process and, with tree, the children it already has; then frees them again', async () => {
    // A shell whose child sleeps: the child must follow the parent only when the tree is asked for.
    const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let child = 0;
    try {
      child = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d) => resolve(String(d).trim()))));
      pin(parent.pid!, '0');
      assert.equal(allowed(parent.pid!), '0');
      assert.notEqual(allowed(child), '0', 'a child is left alone without tree');
      pin(parent.pid!, '1', { tree: true });
      assert.deepEqual([allowed(parent.pid!), allowed(child)], ['1', '1']);
      pin(parent.pid!, ALL_CPUS, { tree: true });
      assert.deepEqual([allowed(parent.pid!), allowed(child)], [ALL_CPUS, ALL_CPUS]);
    } finally {
      if (child) process.kill(child, 'SIGKILL');
      parent.kill('SIGKILL');
    }
  });
});
