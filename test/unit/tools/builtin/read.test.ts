import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { refusedWith, toolFixture, type ToolFixture } from './fixture.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe('workspace_read', () => {
  let f: ToolFixture;
  const big = 'x'.repeat(200_000);
  // 'é' is 2 bytes, '€' 3, '😀' 4: every window edge below lands inside one of them.
  const multi = 'aé€😀b';
  before(() => {
    f = toolFixture({
      'notes.txt': 'hello\nworld\n',
      'big.txt': big,
      'multi.txt': multi,
      'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hi')]),
      'blob.bin': Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x01]),
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
      'empty.txt': '',
      'dir/inner.txt': 'inner',
    });
  });
  after(() => f.close());

  it('returns a whole small file with the sha256 of every byte and no more to read', async () => {
    const r = await f.call('workspace_read', { path: 'notes.txt' });
    assert.equal(r.content, 'hello\nworld\n');
    assert.equal(r.sha256, sha('hello\nworld\n'));
    assert.equal(r.size, 12);
    assert.deepEqual(r.range, { start: 0, end: 12 });
    assert.equal(r.hasMore, false);
    assert.equal(r.nextOffset, null);
    assert.equal(r.path, 'notes.txt');
  });

  it('pages a file larger than the 128 KiB window and hashes the whole file on every page', async () => {
    const first = await f.call('workspace_read', { path: 'big.txt' });
    assert.equal(first.content.length, 131_072);
    assert.equal(first.hasMore, true);
    assert.equal(first.nextOffset, 131_072);
    assert.equal(first.sha256, sha(big));
    const second = await f.call('workspace_read', { path: 'big.txt', offset: first.nextOffset });
    assert.equal(second.content.length, 200_000 - 131_072);
    assert.equal(second.hasMore, false);
    assert.equal(second.sha256, first.sha256);
    assert.equal(first.content + second.content, big);
  });

  it('honours a smaller limit and reports the range it returned', async () => {
    const r = await f.call('workspace_read', { path: 'notes.txt', offset: 6, limit: 3 });
    assert.equal(r.content, 'wor');
    assert.deepEqual(r.range, { start: 6, end: 9 });
    assert.equal(r.nextOffset, 9);
  });

  it('never splits a UTF-8 character and walking nextOffset reassembles the text exactly', async () => {
    for (const limit of [1, 2, 3, 4, 5]) {
      let text = '';
      let offset = 0;
      for (let guard = 0; guard < 50; guard++) {
        const r = await f.call('workspace_read', { path: 'multi.txt', offset, limit });
        assert.equal(Buffer.byteLength(r.content), r.range.end - r.range.start);
        text += r.content;
        if (!r.hasMore) break;
        offset = r.nextOffset;
      }
      assert.equal(text, multi, `limit ${limit}`);
    }
  });

  it('moves an offset inside a character back to where the character starts', async () => {
    // bytes: a(0) é(1-2) €(3-5) 😀(6-9) b(10)
    const r = await f.call('workspace_read', { path: 'multi.txt', offset: 4, limit: 3 });
    assert.equal(r.range.start, 3);
    assert.equal(r.content, '€');
  });

  it('keeps a byte-order mark so the text written back is identical', async () => {
    const r = await f.call('workspace_read', { path: 'bom.txt' });
    assert.equal(r.content, '\ufeffhi');
  });

  it('reads an empty file as empty content', async () => {
    const r = await f.call('workspace_read', { path: 'empty.txt' });
    assert.equal(r.content, '');
    assert.equal(r.size, 0);
    assert.equal(r.sha256, sha(''));
  });

  it('refuses a binary file with a hint towards the image and document tools', async () => {
    const err = await refusedWith(f.call('workspace_read', { path: 'blob.bin' }), 'binary_file');
    assert.match(err.hint ?? '', /workspace_image/);
  });

  it('refuses text that is not UTF-8 as binary rather than guessing', async () => {
    await refusedWith(f.call('workspace_read', { path: 'latin1.txt' }), 'binary_file');
  });

  it('refuses a limit above 128 KiB', async () => {
    await refusedWith(f.call('workspace_read', { path: 'big.txt', limit: 131_073 }), 'invalid_arguments');
  });

  it('refuses a directory and a missing file', async () => {
    await refusedWith(f.call('workspace_read', { path: 'dir' }), 'not_regular_file');
    await refusedWith(f.call('workspace_read', { path: 'nope.txt' }), 'path_not_found');
  });
});
