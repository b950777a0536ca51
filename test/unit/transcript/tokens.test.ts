import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { TranscriptTokens, type CursorToken } from '../../../src/transcript/tokens.js';

describe('transcript cursors and snapshots', () => {
  const tokens = new TranscriptTokens(randomBytes(32));
  const cursor: CursorToken = { kind: 'cursor', sessionId: 's1', size: 1200, fingerprint: 'rec-1200', direction: 'backward', position: 700 };

  test('a signed cursor verifies to exactly what was signed; a snapshot stays a snapshot', () => {
    assert.deepEqual(tokens.verify(tokens.sign(cursor)), cursor);
    const snap = { kind: 'snapshot' as const, sessionId: 's1', size: 0, fingerprint: '' };
    assert.deepEqual(tokens.verify(tokens.sign(snap)), snap);
  });

  test('a changed payload, a cut signature, another home\'s secret or an over-long token is refused', () => {
    const token = tokens.sign(cursor);
    const [payload, mac] = token.split('.') as [string, string];
    const moved = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('"p":700', '"p":1')).toString('base64url');
    assert.equal(tokens.verify(`${moved}.${mac}`), undefined);
    assert.equal(tokens.verify(`${payload}.${mac.slice(1)}`), undefined);
    assert.equal(tokens.verify(`${payload}`), undefined);
    assert.equal(new TranscriptTokens(randomBytes(32)).verify(token), undefined);
    assert.equal(tokens.verify(`${token}${'A'.repeat(1024)}`), undefined);
    assert.equal(tokens.verify(''), undefined);
  });

  test('a well-signed payload of the wrong shape is refused too', () => {
    const signer = new TranscriptTokens(Buffer.alloc(32, 7));
    const forge = (payload: unknown) => {
      // Sign arbitrary JSON the way sign() does, to reach the shape checks behind the signature.
      const text = JSON.stringify(payload);
      return `${Buffer.from(text).toString('base64url')}.${createHmac('sha256', Buffer.alloc(32, 7)).update(text).digest('base64url')}`;
    };
    assert.ok(signer.verify(forge({ v: 1, k: 's', s: 'x', n: 1, f: 'r' })));
    for (const bad of [
      { v: 2, k: 's', s: 'x', n: 1, f: 'r' },
      { v: 1, k: 's', s: 'x', n: -1, f: 'r' },
      { v: 1, k: 'c', s: 'x', n: 1, f: 'r', d: 'sideways', p: 1 },
      { v: 1, k: 'c', s: 'x', n: 1, f: 'r', d: 'f', p: 1.5 },
      { v: 1, k: 'q', s: 'x', n: 1, f: 'r' },
      [1, 2, 3],
    ]) {
      assert.equal(signer.verify(forge(bad)), undefined, JSON.stringify(bad));
    }
  });
});
