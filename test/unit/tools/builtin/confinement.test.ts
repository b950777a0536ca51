import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeDir, tempDir } from '../../../support/tmp.js';
import { refusedWith, toolFixture, type ToolFixture } from './fixture.js';

const sha = (b: string): string => createHash('sha256').update(b).digest('hex');

/** Every tool that takes a path, with arguments that would succeed on an ordinary file. */
const PATH_CALLS: Array<[string, (path: string) => Record<string, unknown>]> = [
  ['workspace_list', (path) => ({ path })],
  ['workspace_read', (path) => ({ path })],
  ['workspace_image', (path) => ({ path })],
  ['workspace_document', (path) => ({ path })],
  ['workspace_write', (path) => ({ path, content: 'pwned', expectedSha256: sha('secret') })],
  ['workspace_patch', (path) => ({ path, oldText: 'secret', newText: 'pwned', expectedSha256: sha('secret') })],
  ['workspace_delete', (path) => ({ path, expectedSha256: sha('secret') })],
  ['workspace_exec', (cwd) => ({ command: 'true', cwd })],
];

describe('every path-taking workspace tool stays inside the workspace', () => {
  let f: ToolFixture;
  let outside: string;
  before(() => {
    outside = tempDir('berth-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    f = toolFixture({ 'inside.txt': 'inside' });
    symlinkSync(outside, join(f.root, 'out-dir'));
    symlinkSync(join(outside, 'secret.txt'), join(f.root, 'out-file.txt'));
    symlinkSync(join(outside, 'missing.txt'), join(f.root, 'dangling.txt'));
    mkdirSync(join(f.root, 'sub'));
  });
  after(async () => {
    await f.close();
    removeDir(outside);
  });

  for (const [tool, args] of PATH_CALLS) {
    it(`${tool} refuses .. that climbs out of the root`, async () => {
      await refusedWith(f.call(tool, args('sub/../../secret.txt')), 'path_outside_workspace');
    });

    it(`${tool} refuses an absolute path outside the root`, async () => {
      await refusedWith(f.call(tool, args(join(outside, 'secret.txt'))), 'path_outside_workspace');
    });

    it(`${tool} refuses a symlink that leads out, to a file or through a directory`, async () => {
      await refusedWith(f.call(tool, args('out-file.txt')), 'symlink_escape');
      await refusedWith(f.call(tool, args('out-dir/secret.txt')), 'symlink_escape');
    });
  }

  it('a write through a dangling link is refused instead of creating its target', async () => {
    await refusedWith(f.call('workspace_write', { path: 'dangling.txt', content: 'x', expectedSha256: null }), 'symlink_escape');
    await refusedWith(f.call('workspace_write', { path: 'out-dir/new.txt', content: 'x', expectedSha256: null }), 'symlink_escape');
  });

  it('a new file under a link to a directory inside the workspace is created in the directory it points to', async () => {
    symlinkSync(join(f.root, 'sub'), join(f.root, 'sub-link'));
    const written = await f.call('workspace_write', { path: 'sub-link/made.txt', content: 'made', expectedSha256: null });
    assert.equal(written.path, 'sub/made.txt');
    assert.equal(readFileSync(join(f.root, 'sub', 'made.txt'), 'utf8'), 'made');
  });

  it('a read or write through a link loop is refused as an escape', async () => {
    symlinkSync('loop-b', join(f.root, 'loop-a'));
    symlinkSync('loop-a', join(f.root, 'loop-b'));
    await refusedWith(f.call('workspace_read', { path: 'loop-a' }), 'symlink_escape');
    await refusedWith(f.call('workspace_write', { path: 'loop-a/x.txt', content: 'x', expectedSha256: null }), 'symlink_escape');
  });

  it('the secret outside is unchanged after all of it', () => {
    assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'secret');
  });
});
