import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { INLINE_WRITE_MAX_BYTES } from '../../../../src/workspace/limits.js';
import { refusedWith, toolFixture, type ToolFixture } from './fixture.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe('workspace_write', () => {
  let f: ToolFixture;
  before(() => {
    f = toolFixture({ 'existing.txt': 'old\n', 'blocker': 'a file where a directory would go' });
  });
  after(() => f.close());

  it('creates a new file and its missing parent directories when expectedSha256 is null', async () => {
    const r = await f.call('workspace_write', { path: 'src/deep/new.ts', content: 'export {};\n', expectedSha256: null });
    assert.equal(readFileSync(join(f.root, 'src/deep/new.ts'), 'utf8'), 'export {};\n');
    assert.deepEqual(r, { path: 'src/deep/new.ts', sha256: sha('export {};\n'), size: 11, created: true });
  });

  it('replaces a file whose sha256 still matches and returns the new revision', async () => {
    const r = await f.call('workspace_write', { path: 'existing.txt', content: 'new ✓\n', expectedSha256: sha('old\n') });
    assert.equal(readFileSync(join(f.root, 'existing.txt'), 'utf8'), 'new ✓\n');
    assert.equal(r.sha256, sha('new ✓\n'));
    assert.equal(r.size, Buffer.byteLength('new ✓\n'));
    assert.equal(r.created, false);
  });

  it('keeps the permissions of the file it replaces', async () => {
    const p = join(f.root, 'script.sh');
    await f.call('workspace_write', { path: 'script.sh', content: 'echo 1\n', expectedSha256: null });
    chmodSync(p, 0o750);
    await f.call('workspace_write', { path: 'script.sh', content: 'echo 2\n', expectedSha256: sha('echo 1\n') });
    assert.equal(statSync(p).mode & 0o777, 0o750);
  });

  it('creates and replaces files on both sides of the inline size bound, and checks their revisions', async () => {
    const bound = INLINE_WRITE_MAX_BYTES;
    const sizes = [bound - 1, bound, bound + 1, 5 * bound];
    for (const [i, size] of sizes.entries()) {
      const first = Buffer.alloc(size, 97 + i).toString();
      const made = await f.call('workspace_write', { path: `bound/${size}.txt`, content: first, expectedSha256: null });
      assert.equal(made.sha256, sha(first));
      for (const next of sizes) {
        const before = readFileSync(join(f.root, `bound/${size}.txt`));
        const content = Buffer.alloc(next, 65 + (next % 26)).toString();
        // A hash one byte off is refused and changes nothing, whichever side of the bound either file is on.
        const stale = sha(Buffer.concat([before, Buffer.from('x')]));
        await refusedWith(f.call('workspace_write', { path: `bound/${size}.txt`, content, expectedSha256: stale }), 'stale_hash');
        assert.deepEqual(readFileSync(join(f.root, `bound/${size}.txt`)), before);
        const r = await f.call('workspace_write', { path: `bound/${size}.txt`, content, expectedSha256: sha(before) });
        assert.equal(r.sha256, sha(content));
        assert.equal(readFileSync(join(f.root, `bound/${size}.txt`), 'utf8'), content);
        await f.call('workspace_write', { path: `bound/${size}.txt`, content: before.toString(), expectedSha256: sha(content) });
      }
    }
  });

  it('refuses to create over an existing file', async () => {
    await refusedWith(f.call('workspace_write', { path: 'existing.txt', content: 'x', expectedSha256: null }), 'file_exists');
  });

  it('refuses a stale hash and leaves the file untouched', async () => {
    const before = readFileSync(join(f.root, 'existing.txt'), 'utf8');
    await refusedWith(
      f.call('workspace_write', { path: 'existing.txt', content: 'lost', expectedSha256: sha('something else') }),
      'stale_hash',
    );
    assert.equal(readFileSync(join(f.root, 'existing.txt'), 'utf8'), before);
  });

  it('refuses a hash for a file that no longer exists as stale', async () => {
    await refusedWith(f.call('workspace_write', { path: 'gone.txt', content: 'x', expectedSha256: sha('x') }), 'stale_hash');
    assert.equal(existsSync(join(f.root, 'gone.txt')), false);
  });

  it('refuses content longer than the seed maximum', async () => {
    await refusedWith(
      f.call('workspace_write', { path: 'huge.txt', content: 'x'.repeat(1_048_577), expectedSha256: null }),
      'file_too_large',
    );
    assert.equal(existsSync(join(f.root, 'huge.txt')), false);
  });

  it('refuses to write over a directory or through a file used as a directory', async () => {
    mkdirSync(join(f.root, 'adir'));
    await refusedWith(f.call('workspace_write', { path: 'adir', content: 'x', expectedSha256: null }), 'not_regular_file');
    await refusedWith(f.call('workspace_write', { path: 'blocker/child.txt', content: 'x', expectedSha256: null }), 'not_regular_file');
  });

  it('refuses to write inside .git', async () => {
    mkdirSync(join(f.root, '.git/hooks'), { recursive: true });
    await refusedWith(f.call('workspace_write', { path: '.git/hooks/pre-commit', content: 'x', expectedSha256: null }), 'permission_denied');
  });

  it('leaves no temp files behind after successes and refusals', () => {
    const stray = readdirSync(f.root, { recursive: true }).map(String).filter((n) => n.includes('.berth-'));
    assert.deepEqual(stray, []);
  });
});

describe('workspace_patch', () => {
  let f: ToolFixture;
  const source = 'const a = 1;\nconst b = 2;\nconst b2 = 2;\n';
  before(() => {
    f = toolFixture({ 'code.ts': source, 'blob.bin': Buffer.from([0xff, 0xfe, 0x00, 0x01]) });
  });
  after(() => f.close());

  it('replaces the one occurrence, returns the new revision and a small diff summary', async () => {
    const r = await f.call('workspace_patch', {
      path: 'code.ts',
      oldText: 'const a = 1;\n',
      newText: 'const a = 10;\nconst c = 3;\n',
      expectedSha256: sha(source),
    });
    const now = readFileSync(join(f.root, 'code.ts'), 'utf8');
    assert.equal(now, 'const a = 10;\nconst c = 3;\nconst b = 2;\nconst b2 = 2;\n');
    assert.equal(r.sha256, sha(now));
    assert.deepEqual(r.diff, { startLine: 1, removedLines: 1, addedLines: 2, sizeChange: Buffer.byteLength(now) - source.length });
  });

  it('treats $ patterns in newText literally', async () => {
    const cur = readFileSync(join(f.root, 'code.ts'));
    await f.call('workspace_patch', { path: 'code.ts', oldText: 'const c = 3;', newText: "const c = '$&$1';", expectedSha256: sha(cur) });
    assert.match(readFileSync(join(f.root, 'code.ts'), 'utf8'), /const c = '\$&\$1';/);
  });

  it('refuses text that occurs more than once, with the count', async () => {
    const cur = readFileSync(join(f.root, 'code.ts'));
    const err = await refusedWith(
      f.call('workspace_patch', { path: 'code.ts', oldText: '= 2;', newText: '= 3;', expectedSha256: sha(cur) }),
      'ambiguous_text_match',
    );
    assert.equal(err.details.occurrences, 2);
    assert.deepEqual(readFileSync(join(f.root, 'code.ts')), cur);
  });

  it('counts overlapping occurrences as ambiguous', async () => {
    await f.call('workspace_write', { path: 'aaa.txt', content: 'aaa', expectedSha256: null });
    await refusedWith(f.call('workspace_patch', { path: 'aaa.txt', oldText: 'aa', newText: 'b', expectedSha256: sha('aaa') }), 'ambiguous_text_match');
  });

  it('refuses text that does not occur', async () => {
    const cur = readFileSync(join(f.root, 'code.ts'));
    await refusedWith(
      f.call('workspace_patch', { path: 'code.ts', oldText: 'const z', newText: '', expectedSha256: sha(cur) }),
      'text_not_found',
    );
  });

  it('refuses a stale hash before looking for the text', async () => {
    await refusedWith(
      f.call('workspace_patch', { path: 'code.ts', oldText: 'const a', newText: 'let a', expectedSha256: sha(source) }),
      'stale_hash',
    );
  });

  it('with a null hash, patches the file as it is now, without comparing revisions', async () => {
    writeFileSync(join(f.root, 'unread.ts'), 'let x = 1;\nlet y = 2;\n');
    const r = await f.call('workspace_patch', { path: 'unread.ts', oldText: 'let y = 2;', newText: 'let y = 3;', expectedSha256: null });
    const now = readFileSync(join(f.root, 'unread.ts'), 'utf8');
    assert.equal(now, 'let x = 1;\nlet y = 3;\n');
    assert.equal(r.sha256, sha(now));
  });

  it('with a null hash, still refuses text that occurs twice or not at all, and a missing file', async () => {
    writeFileSync(join(f.root, 'twice.ts'), 'x;\nx;\n');
    await refusedWith(f.call('workspace_patch', { path: 'twice.ts', oldText: 'x;', newText: 'y;', expectedSha256: null }), 'ambiguous_text_match');
    await refusedWith(f.call('workspace_patch', { path: 'twice.ts', oldText: 'z;', newText: 'y;', expectedSha256: null }), 'text_not_found');
    await refusedWith(f.call('workspace_patch', { path: 'absent.ts', oldText: 'x', newText: 'y', expectedSha256: null }), 'path_not_found');
    assert.equal(readFileSync(join(f.root, 'twice.ts'), 'utf8'), 'x;\nx;\n');
  });

  it('refuses a binary file and a missing file', async () => {
    const bin = readFileSync(join(f.root, 'blob.bin'));
    await refusedWith(f.call('workspace_patch', { path: 'blob.bin', oldText: 'a', newText: 'b', expectedSha256: sha(bin) }), 'binary_file');
    await refusedWith(f.call('workspace_patch', { path: 'none.ts', oldText: 'a', newText: 'b', expectedSha256: sha('') }), 'path_not_found');
  });
});

describe('workspace_delete', () => {
  let f: ToolFixture;
  before(() => {
    f = toolFixture({ 'doomed.txt': 'bye', 'kept.txt': 'stay', 'folder/x.txt': 'x' });
    symlinkSync('kept.txt', join(f.root, 'link.txt'));
  });
  after(() => f.close());

  it('deletes a regular file whose hash matches', async () => {
    const r = await f.call('workspace_delete', { path: 'doomed.txt', expectedSha256: sha('bye') });
    assert.deepEqual(r, { path: 'doomed.txt', deleted: true, size: 3 });
    assert.equal(existsSync(join(f.root, 'doomed.txt')), false);
  });

  it('refuses a stale hash and puts nothing out of place', async () => {
    await refusedWith(f.call('workspace_delete', { path: 'kept.txt', expectedSha256: sha('other') }), 'stale_hash');
    assert.equal(readFileSync(join(f.root, 'kept.txt'), 'utf8'), 'stay');
    assert.deepEqual(readdirSync(f.root).filter((n) => n.includes('.berth-')), []);
  });

  it('refuses directories and symbolic links', async () => {
    await refusedWith(f.call('workspace_delete', { path: 'folder', expectedSha256: sha('x') }), 'not_regular_file');
    await refusedWith(f.call('workspace_delete', { path: 'link.txt', expectedSha256: sha('stay') }), 'not_regular_file');
    assert.equal(readFileSync(join(f.root, 'kept.txt'), 'utf8'), 'stay');
  });

  it('refuses a missing file', async () => {
    await refusedWith(f.call('workspace_delete', { path: 'never.txt', expectedSha256: sha('') }), 'path_not_found');
  });

  it('with a null hash, deletes the regular file whatever its content', async () => {
    writeFileSync(join(f.root, 'unread.txt'), 'never read');
    const r = await f.call('workspace_delete', { path: 'unread.txt', expectedSha256: null });
    assert.deepEqual(r, { path: 'unread.txt', deleted: true, size: 10 });
    assert.equal(existsSync(join(f.root, 'unread.txt')), false);
  });

  it('with a null hash, still refuses directories, symbolic links and missing files', async () => {
    await refusedWith(f.call('workspace_delete', { path: 'folder', expectedSha256: null }), 'not_regular_file');
    await refusedWith(f.call('workspace_delete', { path: 'link.txt', expectedSha256: null }), 'not_regular_file');
    await refusedWith(f.call('workspace_delete', { path: 'never.txt', expectedSha256: null }), 'path_not_found');
    assert.equal(readFileSync(join(f.root, 'kept.txt'), 'utf8'), 'stay');
    assert.equal(readFileSync(join(f.root, 'folder/x.txt'), 'utf8'), 'x');
  });
});
