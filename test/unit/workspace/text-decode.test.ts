import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeCapped, lineEndingOf, sniff, transcodeToUtf8 } from '../../../src/workspace/text-decode.js';

describe('sniff', () => {
  it('names the encoding of each byte order mark', () => {
    const cases: [number[], string, number][] = [
      [[0xef, 0xbb, 0xbf, 0x41], 'utf-8', 3],
      [[0xff, 0xfe, 0x41, 0x00], 'utf-16le', 2],
      [[0xfe, 0xff, 0x00, 0x41], 'utf-16be', 2],
      [[0xff, 0xfe, 0x00, 0x00], 'utf-32le', 4],
      [[0x00, 0x00, 0xfe, 0xff], 'utf-32be', 4],
    ];
    for (const [bytes, encoding, bomBytes] of cases) {
      assert.deepEqual(sniff(Buffer.from(bytes)), { binary: false, encoding, bomBytes }, encoding);
    }
  });

  it('calls a NUL, or more than 30% control bytes, binary; tabs and line breaks are text', () => {
    assert.equal(sniff(Buffer.from('abc\0def')).binary, true);
    assert.equal(sniff(Buffer.from([1, 2, 3, 0x41, 0x42, 0x43, 0x44, 0x45])).binary, true);
    assert.equal(sniff(Buffer.from([1, 2, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47])).binary, false);
    assert.equal(sniff(Buffer.from('\t\n\v\f\r'.repeat(10))).binary, false);
    assert.equal(sniff(Buffer.alloc(0)).binary, false);
  });

  it('looks only at the first 4096 bytes', () => {
    assert.equal(sniff(Buffer.concat([Buffer.alloc(4096, 0x41), Buffer.from([0])])).binary, false);
  });
});

describe('decoding', () => {
  it('transcodes UTF-16 and UTF-32 to UTF-8, marking broken code units', () => {
    assert.equal(transcodeToUtf8(Buffer.from('hé🙂', 'utf16le'), 'utf-16le').toString(), 'hé🙂');
    assert.equal(transcodeToUtf8(Buffer.from('hé', 'utf16le').swap16(), 'utf-16be').toString(), 'hé');
    const w = Buffer.alloc(9);
    w.writeUInt32BE(0x1f642, 0);
    w.writeUInt32BE(0xd800, 4);
    assert.equal(transcodeToUtf8(w, 'utf-32be').toString(), '🙂\ufffd\ufffd');
  });

  it('caps decoded UTF-8 on a character boundary', () => {
    const text = Buffer.from('中文🙂');
    assert.deepEqual(decodeCapped(text, 7), { text: '中文', cut: true });
    assert.deepEqual(decodeCapped(text, 10), { text: '中文🙂', cut: false });
    assert.deepEqual(decodeCapped(Buffer.from([0x61, 0xff, 0x62]), 3), { text: 'a', cut: true });
  });

  it('names a line ending by majority, ties going to LF', () => {
    assert.equal(lineEndingOf({ crlf: 2, lf: 1 }), 'crlf');
    assert.equal(lineEndingOf({ crlf: 1, lf: 1 }), 'lf');
    assert.equal(lineEndingOf({ crlf: 0, lf: 0 }), 'lf');
  });
});
