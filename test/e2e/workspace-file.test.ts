import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { BIG, CRLF, LARGE, LARGE_LINES, README, readsFiles } from './workspace-reads.fixture.js';

const q = encodeURIComponent;
const sha = (data: string | Buffer): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

describe('GET /file', () => {
  let d: TestDaemon;
  const file = (query: string, headers?: Record<string, string>) => d.json('GET', `/file?${query}`, undefined, headers);
  before(async () => {
    d = await startTestDaemon({ files: readsFiles() });
  });
  after(() => d.close());

  it('returns a small text file whole with every WorkspaceFile field', async () => {
    const r = await file('path=README.md');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      kind: 'file',
      path: 'README.md',
      content: README,
      encoding: 'utf-8',
      bom: false,
      lineEnding: 'lf',
      sizeBytes: 35,
      returnedBytes: 35,
      truncated: false,
      hash: 'sha256:dc1e8c5359de1590ab89efe73e63188dbc2ac7ae49e991b625c97197484bcb4b',
      matchedIgnore: null,
      originalLineCount: 5,
      nextCursor: null,
      hasMore: false,
    });
    assert.deepEqual(Object.keys(r.body).slice(0, 3), ['kind', 'path', 'content'], 'fields in the recorded order');
  });

  it('keeps the CRs of a CRLF file and reports lineEnding crlf, also for a one-line window', async () => {
    const whole = await file('path=crlf.txt');
    assert.equal(whole.body.content, CRLF);
    assert.equal(whole.body.lineEnding, 'crlf');
    assert.equal(whole.body.originalLineCount, 4);
    const first = await file('path=crlf.txt&limit=1');
    assert.equal(first.body.content, 'line one\r');
    assert.equal(first.body.lineEnding, 'crlf');
    const second = await file(`path=crlf.txt&limit=1&cursor=${first.body.nextCursor}`);
    assert.equal(second.body.content, 'line two\r');
    assert.equal(second.body.lineEnding, 'crlf');
  });

  it('detects a UTF-8 BOM, strips it from the content and hashes the raw bytes', async () => {
    const raw = readsFiles()['bom8.txt'] as Buffer;
    const r = await file('path=bom8.txt');
    assert.equal(r.body.content, 'héllo\nwörld\n');
    assert.equal(r.body.bom, true);
    assert.equal(r.body.encoding, 'utf-8');
    assert.equal(r.body.sizeBytes, raw.length);
    assert.equal(r.body.returnedBytes, Buffer.byteLength('héllo\nwörld\n'));
    assert.equal(r.body.hash, sha(raw));
    const paged = await file('path=bom8.txt&limit=1');
    const rest = await file(`path=bom8.txt&cursor=${paged.body.nextCursor}`);
    assert.equal(`${paged.body.content}\n${rest.body.content}`, 'héllo\nwörld\n');
  });

  it('decodes UTF-16 and UTF-32 files that carry a BOM', async () => {
    const le = await file('path=bom16le.txt');
    assert.deepEqual([le.body.content, le.body.encoding, le.body.bom, le.body.lineEnding], ['hi\r\nthere\r\n', 'utf-16le', true, 'crlf']);
    const be = await file('path=bom16be.txt');
    assert.deepEqual([be.body.content, be.body.encoding], ['big end\n', 'utf-16be']);
    const w = await file('path=bom32le.txt');
    assert.deepEqual([w.body.content, w.body.encoding, w.body.originalLineCount], ['x🙂\ny', 'utf-32le', 2]);
    const window = await file('path=bom16le.txt&limit=1');
    assert.equal(window.body.content, 'hi\r');
    assert.equal(window.body.hasMore, true);
    assert.equal(window.body.nextCursor, null, 'no byte offset maps a UTF-16 page, so no cursor');
  });

  it('reads an empty file as empty text of one line', async () => {
    const r = await file('path=empty.txt');
    assert.equal(r.status, 200);
    assert.equal(r.body.content, '');
    assert.equal(r.body.sizeBytes, 0);
    assert.equal(r.body.returnedBytes, 0);
    assert.equal(r.body.truncated, false);
    assert.equal(r.body.hasMore, false);
    assert.equal(r.body.originalLineCount, 1);
    assert.equal(r.body.hash, sha(''));
  });

  it('refuses binary files with 422 binary_file and points to readBytes', async () => {
    for (const path of ['blob.bin', 'control.bin']) {
      const r = await file(`path=${path}`);
      assert.equal(r.status, 422, path);
      assert.equal(r.body.errorKind, 'binary_file');
      assert.equal(r.body.code, 'binary_file');
      assert.match(r.body.hint, /readBytes/);
    }
  });

  it('cuts a 1-based line window without the newline after its last line', async () => {
    const r = await file('path=big.txt&line=10&limit=3');
    assert.equal(r.body.content, 'line 10\nline 11\nline 12');
    assert.equal(r.body.returnedBytes, 23);
    assert.equal(r.body.truncated, true);
    assert.equal(r.body.hasMore, true);
    assert.equal(r.body.sizeBytes, 3492);
    assert.equal(r.body.originalLineCount, 401);
    assert.equal(r.body.hash, sha(BIG), 'the hash covers the whole file even for a slice');
    assert.equal(typeof r.body.nextCursor, 'string');
  });

  it('runs a window without limit to the end of the file verbatim', async () => {
    const r = await file('path=big.txt&line=399');
    assert.equal(r.body.content, 'line 399\nline 400\n');
    assert.equal(r.body.truncated, true);
    assert.equal(r.body.hasMore, false);
    assert.equal(r.body.nextCursor, null);
  });

  it('answers a window past the end with empty content and nothing more', async () => {
    const r = await file('path=big.txt&line=1000&limit=5');
    assert.equal(r.status, 200);
    assert.equal(r.body.content, '');
    assert.equal(r.body.truncated, true);
    assert.equal(r.body.hasMore, false);
    assert.equal(r.body.originalLineCount, 401);
  });

  it('treats a limit that covers the whole file as the whole file', async () => {
    const r = await file('path=noeol.txt&limit=2');
    assert.equal(r.body.content, 'a\nb');
    assert.equal(r.body.truncated, false);
    assert.equal(r.body.hasMore, false);
  });

  it('caps the returned UTF-8 bytes with maxBytes on a character boundary', async () => {
    const r = await file('path=multi.txt&maxBytes=7');
    assert.equal(r.body.content, '中文');
    assert.equal(r.body.returnedBytes, 6);
    assert.equal(r.body.truncated, true);
    assert.equal(r.body.hasMore, true);
    assert.equal(r.body.nextCursor, null, 'a cut inside a line leaves no line offset to resume from');
    const big = await file('path=big.txt&maxBytes=100');
    assert.equal(big.body.content, BIG.slice(0, 100));
  });

  it('pages a file to its end by cursor, and the pages rejoin with LF', async () => {
    const pages: string[] = [];
    let r = await file('path=big.txt&limit=37');
    pages.push(r.body.content);
    while (r.body.hasMore) {
      assert.equal(r.status, 200);
      r = await file(`path=big.txt&limit=37&cursor=${r.body.nextCursor}`);
      pages.push(r.body.content);
    }
    assert.equal(r.body.nextCursor, null);
    assert.equal(pages.length, Math.ceil(400 / 37));
    // The last page ran out of lines before its limit, so it ends at the end of the file, newline included.
    assert.ok(pages.join('\n') === BIG, 'pages rejoin to the file');
  });

  it('refuses a file above 256 KiB without a window with 413 file_too_large', async () => {
    const r = await file('path=large.txt');
    assert.equal(r.status, 413);
    assert.equal(r.body.errorKind, 'file_too_large');
  });

  it('streams windows of a large file without hash or line count and pages it by cursor', async () => {
    const first = await file('path=large.txt&limit=1200');
    assert.equal(first.status, 200);
    assert.equal(first.body.sizeBytes, Buffer.byteLength(LARGE));
    assert.equal(first.body.hash, undefined);
    assert.equal(first.body.originalLineCount, null);
    assert.equal(first.body.content, LARGE_LINES.slice(0, 1200).join('\n'));
    const pages = [first.body.content];
    let r = first;
    while (r.body.hasMore) {
      r = await file(`path=large.txt&limit=1200&cursor=${r.body.nextCursor}`);
      assert.equal(r.status, 200);
      pages.push(r.body.content);
    }
    assert.equal(pages.join('\n'), LARGE);
    const deep = await file('path=large.txt&line=4999');
    assert.equal(deep.body.content, LARGE_LINES.slice(4998).join('\n'));
    assert.equal(deep.body.originalLineCount, 5000, 'a window that reached the end counts the lines');
    const capped = await file('path=large.txt&maxBytes=10');
    assert.equal(capped.body.content, 'row-1 xxxx');
    assert.equal(capped.body.hasMore, true);
  });

  it('refuses a large window deeper than the 8 MiB scan budget with 413, yet serves shallow ones', async () => {
    const line = `${'d'.repeat(99)}\n`;
    writeFileSync(join(d.workspace, 'deep.txt'), line.repeat(90_000)); // 9 MB
    const shallow = await file('path=deep.txt&line=2&limit=1');
    assert.equal(shallow.body.content, 'd'.repeat(99));
    const deep = await file('path=deep.txt&line=89990&limit=1');
    assert.equal(deep.status, 413);
    assert.equal(deep.body.errorKind, 'file_too_large');
  });

  it('refuses large text in another encoding and large binary with 422 even with a window', async () => {
    for (const path of ['large-utf16.txt', 'large-binary.dat']) {
      const r = await file(`path=${path}&limit=5`);
      assert.equal(r.status, 422, path);
      assert.equal(r.body.errorKind, 'binary_file');
    }
  });

  it('keeps a cursor valid when the file is appended to', async () => {
    writeFileSync(join(d.workspace, 'tail.log'), 'a\nb\nc\nd\n');
    const first = await file('path=tail.log&limit=2');
    appendFileSync(join(d.workspace, 'tail.log'), 'e\nf\n');
    const next = await file(`path=tail.log&limit=3&cursor=${first.body.nextCursor}`);
    assert.equal(next.status, 200);
    assert.equal(next.body.content, 'c\nd\ne');
  });

  it('answers 409 hash_mismatch when the file under a cursor was replaced', async () => {
    const path = join(d.workspace, 'replaced.txt');
    writeFileSync(path, 'a\nb\nc\nd\n');
    const first = await file('path=replaced.txt&limit=2');
    writeFileSync(join(d.workspace, 'replacement.tmp'), 'a\nb\nc\nd\n');
    renameSync(join(d.workspace, 'replacement.tmp'), path);
    const r = await file(`path=replaced.txt&cursor=${first.body.nextCursor}`);
    assert.equal(r.status, 409);
    assert.equal(r.body.errorKind, 'hash_mismatch');
  });

  it('answers 409 hash_mismatch when the file under a cursor was truncated', async () => {
    const path = join(d.workspace, 'shrunk.txt');
    writeFileSync(path, 'a\nb\nc\nd\n');
    const first = await file('path=shrunk.txt&limit=2');
    truncateSync(path, 3);
    const r = await file(`path=shrunk.txt&cursor=${first.body.nextCursor}`);
    assert.equal(r.status, 409);
    assert.equal(r.body.errorKind, 'hash_mismatch');
  });

  it('answers 409 hash_mismatch when the file was rewritten in place at the same size', async () => {
    const path = join(d.workspace, 'rewritten.txt');
    writeFileSync(path, 'a\nb\nc\nd\n');
    const first = await file('path=rewritten.txt&limit=2');
    writeFileSync(path, 'x\ny\nc\nd\n'); // same inode, same size, other bytes before the cursor
    const r = await file(`path=rewritten.txt&cursor=${first.body.nextCursor}`);
    assert.equal(r.status, 409);
    assert.equal(r.body.errorKind, 'hash_mismatch');
  });

  it('answers 409 when a cursor of one file is used on another', async () => {
    const first = await file('path=big.txt&limit=2');
    const r = await file(`path=README.md&cursor=${first.body.nextCursor}`);
    assert.equal(r.status, 409);
    assert.equal(r.body.errorKind, 'hash_mismatch');
  });

  it('refuses malformed cursors, and a cursor with line, with 400 parse_error', async () => {
    const good = (await file('path=big.txt&limit=1')).body.nextCursor as string;
    const forged = Buffer.from(JSON.stringify({ v: 1, off: 7, size: 3492, dev: '1', ino: '2' })).toString('base64url');
    for (const cursor of ['garbage!', '', 'x'.repeat(1025), forged, Buffer.from('[1]').toString('base64url')]) {
      const r = await file(`path=big.txt&cursor=${q(cursor)}`);
      assert.equal(r.status, 400, cursor.slice(0, 20));
      assert.equal(r.body.errorKind, 'parse_error');
    }
    const both = await file(`path=big.txt&line=2&cursor=${good}`);
    assert.equal(both.status, 400);
    assert.match(both.body.error, /mutually exclusive/);
  });

  it('accepts only plain decimal integers in range for maxBytes, line and limit', async () => {
    const bad = [
      'maxBytes=0', 'maxBytes=262145', 'maxBytes=1e3', 'maxBytes=0x10', 'maxBytes=-1', 'maxBytes=%205', 'maxBytes=',
      'line=0', 'line=1.5', 'line=abc', 'limit=0', 'limit=2001', 'limit=99999999999999999999', 'limit=1&limit=2',
    ];
    for (const query of bad) {
      const r = await file(`path=README.md&${query}`);
      assert.equal(r.status, 400, query);
      assert.equal(r.body.errorKind, 'parse_error', query);
    }
    assert.equal((await file('path=README.md&maxBytes=262144&limit=2000&line=1')).status, 200);
  });

  it('requires path, and refuses a directory as not a regular file', async () => {
    for (const query of ['', 'path=', 'path=a&path=b']) {
      const r = await file(query);
      assert.equal(r.status, 400, query);
      assert.equal(r.body.errorKind, 'parse_error');
    }
    const dir = await file('path=src');
    assert.equal(dir.status, 400);
    assert.equal(dir.body.errorKind, 'parse_error');
    assert.match(dir.body.error, /not a regular file/);
    const missing = await file('path=missing.txt');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.errorKind, 'path_not_found');
  });

  it('reports matchedIgnore file and directory hits without refusing the read', async () => {
    assert.equal((await file('path=debug.log')).body.matchedIgnore, 'file');
    assert.equal((await file('path=build/out.js')).body.matchedIgnore, 'directory');
    assert.equal((await file('path=.git/HEAD')).body.matchedIgnore, 'directory');
    assert.equal((await file('path=src/index.ts')).body.matchedIgnore, null);
  });

  it('checks the optional X-Qwen-Client-Id for format only', async () => {
    assert.equal((await file('path=README.md', { 'X-Qwen-Client-Id': 'client_ok-1.2:3' })).status, 200);
    const r = await file('path=README.md', { 'X-Qwen-Client-Id': 'bad id!' });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'invalid_client_id');
  });

  it('marks answers and refusals Cache-Control no-store and nosniff', async () => {
    for (const query of ['path=README.md', 'path=missing.txt']) {
      const r = await file(query);
      assert.equal(r.headers.get('cache-control'), 'no-store');
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    }
  });
});
