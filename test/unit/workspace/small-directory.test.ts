import assert from 'node:assert/strict';
import { closeSync, fstatSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { INLINE_DIRECTORY_ENTRIES, INLINE_DIRECTORY_MAX_BYTES } from '../../../src/workspace/limits.js';
import { readSmallDirectory } from '../../../src/workspace/small-directory.js';

const linux = process.platform === 'linux';

describe('readSmallDirectory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-small-dir-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a small directory inline, every entry with its type', () => {
    for (const name of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(join(dir, name), name);
    const entries = readSmallDirectory(dir, statSync(dir));
    assert.deepEqual(entries?.map((e) => [e.name, e.isFile()]).sort(), [['a.txt', true], ['b.txt', true], ['c.txt', true]]);
  });

  it('leaves a directory larger than one block to the thread pool', () => {
    const st = Object.assign(statSync(dir), { size: INLINE_DIRECTORY_MAX_BYTES + 1 });
    assert.equal(readSmallDirectory(dir, st), undefined);
  });

  // procfs reports every directory as size 0 whatever it holds: the size says nothing there, so the
  // read must stop at its entry bound rather than read the whole directory on the event loop.
  it('stops past its entry bound where the file system does not tie a directory size to its entries', { skip: !linux }, () => {
    const fds: number[] = [];
    try {
      for (let i = 0; i <= INLINE_DIRECTORY_ENTRIES; i += 1) fds.push(openSync('/dev/null', 'r'));
      const st = statSync('/proc/self/fd');
      assert.ok(st.size <= INLINE_DIRECTORY_MAX_BYTES, 'procfs reports a small size');
      assert.equal(readSmallDirectory('/proc/self/fd', st), undefined);
      assert.ok(fstatSync(fds[0]!).isCharacterDevice());
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    assert.ok((readSmallDirectory('/proc/self', statSync('/proc/self'))?.length ?? 0) > 0, 'a small procfs directory is still read inline');
  });
});
