import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BWRAP_PATHS, probeSandbox, probeSandboxAsync } from '../../../../src/tools/builtin/commands/sandbox.js';
import { removeDir, tempDir } from '../../../support/tmp.js';

/**
 * The daemon probes bubblewrap once its port is open, without blocking (issue 17);
 * `berth connect` and a command asked for before that probe synchronously. Both
 * must reach the same verdict on the same binary.
 */
describe('the sandbox probe', () => {
  const dir = tempDir('berth-sandbox-probe-');
  after(() => removeDir(dir));

  const fake = (name: string, script: string): string => {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\n${script}\n`);
    chmodSync(path, 0o755);
    return path;
  };

  it('says bubblewrap is not installed when no candidate exists, both ways', async () => {
    const none = [join(dir, 'no-such-bwrap')];
    const sync = probeSandbox(none);
    assert.deepEqual(await probeSandboxAsync(none), sync);
    assert.match(sync.available ? '' : sync.reason, /not installed/);
  });

  it('refuses a bwrap that cannot create a sandbox, with what it printed, both ways', async () => {
    const broken = [fake('bwrap-broken', 'echo "setting up uid map: Permission denied" >&2; exit 1')];
    const sync = probeSandbox(broken);
    assert.deepEqual(await probeSandboxAsync(broken), sync);
    assert.equal(sync.available, false);
    assert.match(sync.available ? '' : sync.reason, /cannot create a sandbox here: setting up uid map: Permission denied/);
  });

  it('accepts a bwrap whose trial run succeeds, both ways', async () => {
    const working = [fake('bwrap-ok', 'exit 0')];
    assert.deepEqual(await probeSandboxAsync(working), { available: true, tool: 'bubblewrap', path: working[0] });
    assert.deepEqual(probeSandbox(working), { available: true, tool: 'bubblewrap', path: working[0] });
  });

  it('agrees with the synchronous probe on this machine', async () => {
    assert.deepEqual(await probeSandboxAsync(BWRAP_PATHS), probeSandbox(BWRAP_PATHS));
  });
});
