import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { portableSha256Hex, sha256Hex } from '../../../src/protocol/tools/sha256.js';

describe('SHA-256 without node:crypto', () => {
  it('matches Node for every padding boundary and multi-byte text', () => {
    for (const length of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 70_000]) {
      const text = 'ü'.repeat(length >> 1) + 'x'.repeat(length & 1);
      const bytes = new TextEncoder().encode(text);
      const expected = createHash('sha256').update(bytes).digest('hex');
      assert.equal(portableSha256Hex(bytes), expected, `length ${length}`);
      assert.equal(sha256Hex(text), expected);
    }
  });

  it('gives the published digest of "abc" (FIPS 180-4 example)', () => {
    assert.equal(portableSha256Hex(new TextEncoder().encode('abc')), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
