import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateWindows, tiersOf } from '../../../src/http/rate-limit.js';

describe('rate-limit windows (spec §6.1 --rate-limit)', () => {
  it('admits max requests per window, then refuses with the time left until the window resets', () => {
    const w = new RateWindows({ tier: 'prompt', max: 2, windowMs: 1000 });
    assert.deepEqual(w.hit('a', 0), { allowed: true, remaining: 1, resetAt: 1000 });
    assert.deepEqual(w.hit('a', 100), { allowed: true, remaining: 0, resetAt: 1000 });
    assert.deepEqual(w.hit('a', 250), { allowed: false, retryAfterMs: 750, resetAt: 1000 });
    assert.deepEqual(w.hit('a', 999), { allowed: false, retryAfterMs: 1, resetAt: 1000 });
  });

  it('opens a fresh window once the old one has ended', () => {
    const w = new RateWindows({ tier: 'prompt', max: 1, windowMs: 1000 });
    assert.equal(w.hit('a', 0).allowed, true);
    assert.equal(w.hit('a', 500).allowed, false);
    assert.deepEqual(w.hit('a', 1000), { allowed: true, remaining: 0, resetAt: 2000 });
  });

  it('counts each caller on its own', () => {
    const w = new RateWindows({ tier: 'default', max: 1, windowMs: 1000 });
    assert.equal(w.hit('a', 0).allowed, true);
    assert.equal(w.hit('b', 0).allowed, true);
    assert.equal(w.hit('a', 1).allowed, false);
    assert.equal(w.hit('b', 1).allowed, false);
  });

  it('never tracks more callers than its cap, however many distinct ones arrive', () => {
    const w = new RateWindows({ tier: 'read', max: 5, windowMs: 60_000 }, 100);
    for (let i = 0; i < 10_000; i++) w.hit(`caller-${i}`, i);
    assert.equal(w.size, 100);
    // The newest callers are the ones kept: the last one is still being counted.
    assert.deepEqual(w.hit('caller-9999', 10_000), { allowed: true, remaining: 3, resetAt: 9999 + 60_000 });
  });

  it('drops ended windows before it evicts a caller whose window is still open', () => {
    const w = new RateWindows({ tier: 'read', max: 1, windowMs: 1000 }, 3);
    w.hit('old-1', 0);
    w.hit('old-2', 0);
    w.hit('live', 600);
    assert.equal(w.size, 3);
    w.hit('new', 1000); // old-1 and old-2 have ended; live has not
    assert.equal(w.size, 2);
    assert.equal(w.hit('live', 1001).allowed, false, 'the open window kept its count');
  });
});

describe('rate-limit tiers of a request', () => {
  it('puts prompts, session creation and restores, reads and the rest in their tiers, default last', () => {
    assert.deepEqual(tiersOf('POST', '/session/abc/prompt'), ['prompt', 'default']);
    assert.deepEqual(tiersOf('POST', '/session'), ['session', 'default']);
    assert.deepEqual(tiersOf('POST', '/session/abc/load'), ['session', 'default']);
    assert.deepEqual(tiersOf('POST', '/session/abc/resume'), ['session', 'default']);
    assert.deepEqual(tiersOf('GET', '/session/abc/status'), ['read', 'default']);
    assert.deepEqual(tiersOf('GET', '/file'), ['read', 'default']);
    assert.deepEqual(tiersOf('POST', '/session/abc/cancel'), ['default']);
    assert.deepEqual(tiersOf('DELETE', '/session/abc'), ['default']);
    assert.deepEqual(tiersOf('PATCH', '/session/abc/metadata'), ['default']);
  });
});
