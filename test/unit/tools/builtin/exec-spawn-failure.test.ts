import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const repoRoot = new URL('../../../..', import.meta.url).pathname;
const fixture = new URL('../fixtures/exec-out-of-fds.ts', import.meta.url).pathname;

test('a command started while the process is out of file descriptors is a retryable spawn_failed, not a crash', () => {
  // A low descriptor limit so the fixture can use them all up in milliseconds.
  const run = spawnSync('/bin/sh', ['-c', `ulimit -n 200 && exec "${process.execPath}" --import tsx "${fixture}"`], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(run.status, 0, `the process survived the failed spawn (stderr: ${run.stderr.slice(0, 500)})`);
  const outcome = JSON.parse(run.stdout.trim().split('\n').pop()!);
  assert.deepEqual(outcome, { code: 'spawn_failed', retryable: true, remembered: 0 });
});
