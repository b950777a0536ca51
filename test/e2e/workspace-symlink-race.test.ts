import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { allowWithoutAsking } from '../../src/tools/permission.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * Issue 16, finding 5: `sub/` and a symlink to a folder outside the workspace
 * are exchanged atomically in a tight loop (renameat2 RENAME_EXCHANGE, by a
 * small python3 helper) while the daemon is asked to write into, list and stat
 * `sub` many times. Each answer is either about the real `sub/` or a refusal;
 * nothing is ever written to, listed from or stated in the outside folder.
 */

const ATTEMPTS = 300;
const BATCH = 10;
const OUTSIDE_PROBE = 'outside probe, a size no inside file has';
const SESSION = '5d2c7b1e-8a3f-4c6d-9e0b-1f2a3b4c5d6e';
const hasPython = spawnSync('python3', ['-c', 'import ctypes'], { stdio: 'ignore' }).status === 0;

interface Tally {
  answered: number;
  escaped: number;
}

describe('a symlink swapped in a loop never redirects writes, listings or stats', { skip: hasPython ? false : 'python3 is needed for the renameat2 helper' }, () => {
  let d: TestDaemon;
  let outside: string;
  let swapper: ChildProcess;

  before(async () => {
    outside = tempDir('berth-outside-');
    writeFileSync(join(outside, 'probe.txt'), OUTSIDE_PROBE);
    writeFileSync(join(outside, 'outside-only.txt'), 'secret');
    d = await startTestDaemon({ files: { 'sub/probe.txt': 'in', 'sub/inside-only.txt': 'ok' } });
    symlinkSync(outside, join(d.workspace, 'swap'));
    swapper = spawn('python3', [new URL('../support/swap-loop.py', import.meta.url).pathname, join(d.workspace, 'sub'), join(d.workspace, 'swap')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      swapper.stdout!.once('data', () => resolve());
      swapper.once('exit', (code) => reject(new Error(`the swap helper exited with ${code}`)));
    });
  });

  after(async () => {
    swapper.kill('SIGKILL');
    await d.close();
    removeDir(outside);
  });

  /** Runs `attempt(i)` ATTEMPTS times, BATCH at a time, so requests overlap the swaps and each other. */
  async function hammer(attempt: (i: number) => Promise<'escaped' | 'answered' | 'refused'>): Promise<Tally> {
    const tally: Tally = { answered: 0, escaped: 0 };
    for (let i = 0; i < ATTEMPTS; i += BATCH) {
      const outcomes = await Promise.all(Array.from({ length: BATCH }, (_, k) => attempt(i + k)));
      for (const o of outcomes) {
        if (o === 'escaped') tally.escaped++;
        if (o === 'answered') tally.answered++;
      }
    }
    return tally;
  }

  it('workspace_write: no file and no temp file ever lands outside', async () => {
    const workspace = d.daemon.core.workspaces.primary();
    const set = d.daemon.core.tools.toolSet({ workspace, sessionId: SESSION, namespace: 'race', permission: allowWithoutAsking });
    const tally = await hammer(async (i) => {
      const r = await set.call({ callId: `w${i}`, name: 'workspace_write', args: { path: `sub/w-${i}.txt`, content: 'x', expectedSha256: null } });
      return r.ok ? 'answered' : 'refused';
    });
    swapper.kill('SIGSTOP');
    const leaked = readdirSync(outside).filter((n) => n.startsWith('w-') || n.endsWith('.tmp'));
    swapper.kill('SIGCONT');
    console.log(`writes: ${tally.answered} of ${ATTEMPTS} written, ${leaked.length} files outside`);
    assert.deepEqual(leaked, [], 'files or temp files written outside the workspace');
    assert.ok(tally.answered > 0, 'some writes went through, so the race was run');
  });

  it('/list?path=sub: never lists the outside folder', async () => {
    const tally = await hammer(async () => {
      const r = await d.json('GET', '/list?path=sub');
      if (r.status !== 200) return 'refused';
      const names = (r.body.entries as { name: string }[]).map((e) => e.name);
      return names.includes('outside-only.txt') ? 'escaped' : 'answered';
    });
    console.log(`lists: ${tally.answered} answered, ${tally.escaped} of ${ATTEMPTS} listed the outside folder`);
    assert.equal(tally.escaped, 0);
    assert.ok(tally.answered > 0);
  });

  it('/stat?path=sub/probe.txt: never answers for the outside file', async () => {
    const tally = await hammer(async () => {
      const r = await d.json('GET', '/stat?path=sub/probe.txt');
      if (r.status !== 200) return 'refused';
      return r.body.sizeBytes === OUTSIDE_PROBE.length ? 'escaped' : 'answered';
    });
    console.log(`stats: ${tally.answered} answered, ${tally.escaped} of ${ATTEMPTS} described the outside file`);
    assert.equal(tally.escaped, 0);
    assert.ok(tally.answered > 0);
  });
});
