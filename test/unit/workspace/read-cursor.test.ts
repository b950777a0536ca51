import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { assertSameFile, decodeCursor, encodeCursor, fingerprint } from '../../../src/workspace/read-cursor.js';

const cursor = { off: 35, size: 3492, dev: '65024', ino: '2180275', fp: fingerprint(Buffer.from('line 5\n')) };
const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
const refusedAs = (code: string) => (err: unknown) => err instanceof BerthError && err.code === code;

describe('read cursors', () => {
  it('round-trip through their opaque base64url form', () => {
    const text = encodeCursor(cursor);
    assert.match(text, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeCursor(text), cursor);
  });

  it('refuse anything but the exact issued shape as parse_error', () => {
    const bad = [
      '',
      'not base64!',
      'x'.repeat(1025),
      b64([1]),
      b64({ ...cursor, v: 2 }),
      b64({ v: 1, ...cursor, extra: true }),
      b64({ v: 1, ...cursor, off: 0 }),
      b64({ v: 1, ...cursor, off: 9999 }),
      b64({ v: 1, ...cursor, off: 1.5 }),
      b64({ v: 1, ...cursor, dev: 1 }),
      b64({ v: 1, ...cursor, ino: '-1' }),
      b64({ v: 1, ...cursor, fp: 'XYZ' }),
    ];
    for (const text of bad) assert.throws(() => decodeCursor(text), refusedAs('parse_error'), text.slice(0, 30));
  });

  it('are stale (hash_mismatch) for another file or a shrunk one, but not a grown one', () => {
    assert.throws(() => assertSameFile(cursor, { dev: 65024, ino: 1, size: 3492 }, 'a'), refusedAs('hash_mismatch'));
    assert.throws(() => assertSameFile(cursor, { dev: 65024, ino: 2180275, size: 100 }, 'a'), refusedAs('hash_mismatch'));
    assert.doesNotThrow(() => assertSameFile(cursor, { dev: 65024, ino: 2180275, size: 5000 }, 'a'));
  });
});
