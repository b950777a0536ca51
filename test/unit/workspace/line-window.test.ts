import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countBreaks, LineWindowScanner, type WindowSpec } from '../../../src/workspace/line-window.js';

const spec = (over: Partial<WindowSpec> = {}): WindowSpec => ({
  skipLines: 0,
  limit: Infinity,
  maxContentBytes: 1 << 20,
  maxSkipBytes: Infinity,
  ...over,
});

/** Feeds `text` in chunks of `size` bytes, as a streamed read would. */
function scan(text: string, over: Partial<WindowSpec>, size = 3): LineWindowScanner {
  const bytes = Buffer.from(text);
  const s = new LineWindowScanner(spec(over), 0);
  for (let at = 0; at < bytes.length && !s.done; at += size) s.feed(bytes.subarray(at, at + size), at);
  s.finish(bytes.length);
  return s;
}

describe('LineWindowScanner', () => {
  it('gives the same window whatever the chunking', () => {
    const text = 'alpha\nbeta\r\ngamma\ndelta\n';
    for (const size of [1, 2, 5, 64]) {
      const s = scan(text, { skipLines: 1, limit: 2 }, size);
      assert.equal(s.content().toString(), 'beta\r\ngamma', `chunks of ${size}`);
      assert.equal(s.windowStart, 6);
      assert.equal(s.nextStart, 18);
      assert.equal(s.crlfBeforeWindow, false);
    }
  });

  it('keeps the rest of the file verbatim when the window runs to the end', () => {
    const s = scan('a\nb\nc\n', { skipLines: 1 });
    assert.equal(s.content().toString(), 'b\nc\n');
    assert.equal(s.nextStart, undefined);
    assert.equal(s.windowEnd, 6);
    assert.equal(s.newlines, 3);
  });

  it('ends a window that meets its limit at the last newline with nothing after it', () => {
    const s = scan('one\ntwo\n', { limit: 2 });
    assert.equal(s.content().toString(), 'one\ntwo');
    assert.equal(s.nextStart, 8);
  });

  it('starts past the end with an empty window', () => {
    const s = scan('a\nb', { skipLines: 5, limit: 1 });
    assert.equal(s.content().length, 0);
    assert.equal(s.windowStart, 3);
    assert.equal(s.newlines, 1);
  });

  it('stops collecting past the content cap and keeps one extra byte to judge the cut', () => {
    const s = scan('abcdefgh\nij', { maxContentBytes: 4 });
    assert.equal(s.overflow, true);
    assert.equal(s.content().toString(), 'abcde');
  });

  it('gives up when the skip passes its scan budget', () => {
    const s = scan('x'.repeat(50) + '\nend', { skipLines: 1, maxSkipBytes: 10 }, 8);
    assert.equal(s.scanExceeded, true);
  });

  it('notes whether the break before the window was CRLF', () => {
    assert.equal(scan('a\r\nb\r\n', { skipLines: 1, limit: 1 }, 1).crlfBeforeWindow, true);
  });
});

describe('countBreaks', () => {
  it('counts CRLF and bare LF apart, looking back across the start', () => {
    assert.deepEqual(countBreaks(Buffer.from('a\r\nb\nc\r\n')), { crlf: 2, lf: 1 });
    assert.deepEqual(countBreaks(Buffer.from('\nx'), 0x0d), { crlf: 1, lf: 0 });
    assert.deepEqual(countBreaks(Buffer.from('')), { crlf: 0, lf: 0 });
  });
});
