import assert from 'node:assert/strict';
import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestDaemon } from '../support/daemon.js';
import { removeDir, tempDir, writeTree } from '../support/tmp.js';

test('start-up removes the temp files a killed write left behind, and nothing else', async () => {
  const workspace = tempDir('berth-ws-');
  writeTree(workspace, { 'src/a.ts': 'a', 'keep.txt': 'k' });
  const uuid = '3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c';
  // What a daemon SIGKILLed between writing and renaming leaves beside the target.
  const left = [join(workspace, `.a.ts.berth-${uuid}.tmp`), join(workspace, 'src', `.a.ts.berth-${uuid}.tmp`)];
  const fresh = join(workspace, `.b.ts.berth-${uuid}.tmp`);
  const lookalike = join(workspace, `.a.ts.berth-not-a-uuid.tmp`);
  const old = new Date(Date.now() - 10 * 60_000);
  for (const path of [...left, fresh, lookalike]) writeFileSync(path, 'partial');
  for (const path of [...left, lookalike]) utimesSync(path, old, old);

  const d = await startTestDaemon({ workspace });
  try {
    assert.equal(await d.daemon.swept, 2);
    for (const path of left) assert.equal(existsSync(path), false, `${path} removed`);
    assert.ok(existsSync(fresh), 'a write that may still be in flight (a minute old at most) is left alone');
    assert.ok(existsSync(lookalike), 'only the exact temp-name shape is removed');
    assert.ok(existsSync(join(workspace, 'keep.txt')));
  } finally {
    await d.close();
    removeDir(workspace);
  }
});
