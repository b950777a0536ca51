import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validatorFor } from '../../src/http/contract.js';
import { startStack } from '../support/stack.js';
import { createSession, EventReader, newSession, submit } from '../support/session-client.js';

const errorShape = validatorFor('Error');

describe('--rate-limit tiers (spec §6.1, §13.2)', () => {
  it('answers the prompt after the limit with 429 rate_limit_exceeded, its tier, Retry-After and X-RateLimit headers', async () => {
    const s = await startStack({ config: { rateLimits: [{ tier: 'prompt', max: 2, windowMs: 60_000 }] } });
    try {
      const d = s.daemon;
      const { sessionId, clientId } = await newSession(d);
      const as = { 'x-qwen-client-id': clientId };
      const events = await EventReader.open(d, sessionId);
      const first = await submit(d, sessionId, 'one', {}, as);
      assert.equal(first.status, 202);
      assert.equal(first.headers.get('x-ratelimit-limit'), '2');
      assert.equal(first.headers.get('x-ratelimit-remaining'), '1');
      const second = await submit(d, sessionId, 'two', {}, as);
      assert.equal(second.status, 202);
      assert.equal(second.headers.get('x-ratelimit-remaining'), '0');
      const before = Date.now();
      const third = await submit(d, sessionId, 'three', {}, as);
      assert.equal(third.status, 429);
      assert.ok(errorShape(third.body), JSON.stringify(errorShape.errors));
      assert.equal(third.body.code, 'rate_limit_exceeded');
      assert.equal(third.body.tier, 'prompt');
      assert.equal(third.body.retryable, true);
      assert.ok(Number.isInteger(third.body.retryAfterMs) && third.body.retryAfterMs > 0 && third.body.retryAfterMs <= 60_000);
      const retryAfter = Number(third.headers.get('retry-after'));
      assert.equal(retryAfter, Math.ceil(third.body.retryAfterMs / 1000));
      assert.equal(third.body.retryAfterSeconds, retryAfter);
      assert.equal(third.headers.get('x-ratelimit-limit'), '2');
      assert.equal(third.headers.get('x-ratelimit-remaining'), '0');
      const reset = Number(third.headers.get('x-ratelimit-reset'));
      assert.ok(reset >= Math.floor(before / 1000) && reset <= Math.ceil((Date.now() + 60_000) / 1000), `reset ${reset} is epoch seconds within the window`);
      // The refused prompt was never admitted: exactly two turns ran.
      await events.terminal(second.body.promptId);
      const pending = await d.json('GET', `/session/${sessionId}/pending-prompts`);
      assert.deepEqual(pending.body.pendingPrompts, []);
      assert.equal(events.seen.filter((e) => e.type === 'turn_complete').length, 2);
      events.close();
    } finally {
      await s.close();
    }
  });

  it('counts every client id on its own, and anonymous callers by address', async () => {
    const s = await startStack({ config: { rateLimits: [{ tier: 'prompt', max: 1, windowMs: 60_000 }] } });
    try {
      const d = s.daemon;
      const a = await newSession(d);
      const b = await createSession(d, {}); // a second session with its own client
      const bId = b.body.clientId;
      assert.equal((await submit(d, a.sessionId, 'a1', {}, { 'x-qwen-client-id': a.clientId })).status, 202);
      assert.equal((await submit(d, a.sessionId, 'a2', {}, { 'x-qwen-client-id': a.clientId })).status, 429);
      assert.equal((await submit(d, b.body.sessionId, 'b1', {}, { 'x-qwen-client-id': bId })).status, 202);
      assert.equal((await submit(d, b.body.sessionId, 'anon1')).status, 202, 'the address has its own window');
      const anon2 = await submit(d, b.body.sessionId, 'anon2');
      assert.equal(anon2.status, 429);
      assert.equal(anon2.body.tier, 'prompt');
    } finally {
      await s.close();
    }
  });

  it('limits session creation in the session tier and refuses before any session is made', async () => {
    const s = await startStack({ config: { rateLimits: [{ tier: 'session', max: 2, windowMs: 60_000 }] } });
    try {
      const d = s.daemon;
      const first = await createSession(d, { sessionScope: 'thread' });
      assert.equal(first.status, 200);
      assert.equal((await createSession(d, { sessionScope: 'thread' })).status, 200);
      const refused = await createSession(d, { sessionScope: 'thread' });
      assert.equal(refused.status, 429);
      assert.equal(refused.body.tier, 'session');
      const health = await d.json('GET', '/health?deep=1');
      assert.equal(health.body.sessions, 2);
      assert.equal(health.body.rateLimitHits, 1);
      // No default tier is configured, so requests outside the session tier are not limited.
      for (let i = 0; i < 4; i++) {
        assert.equal((await d.json('GET', `/session/${first.body.sessionId}/status`)).status, 200);
      }
    } finally {
      await s.close();
    }
  });

  it('falls back to the default tier when the specific one is not configured, and never limits /health', async () => {
    const s = await startStack({ config: { rateLimits: [{ tier: 'default', max: 2, windowMs: 60_000 }] } });
    try {
      const d = s.daemon;
      assert.equal((await d.json('GET', '/capabilities')).status, 200);
      const caps = await d.json('GET', '/capabilities');
      assert.equal(caps.status, 200);
      const third = await d.json('GET', '/capabilities');
      assert.equal(third.status, 429);
      assert.equal(third.body.tier, 'default');
      for (let i = 0; i < 5; i++) {
        const h = await d.json('GET', '/health');
        assert.equal(h.status, 200);
        assert.equal(h.headers.get('x-ratelimit-limit'), null);
      }
      assert.equal((await createSession(d, {})).status, 429, 'POST /session falls back to default too');
    } finally {
      await s.close();
    }
  });

  it('limits reads in the read tier while writes in the default tier keep their own count', async () => {
    const s = await startStack({
      config: {
        rateLimits: [
          { tier: 'read', max: 1, windowMs: 60_000 },
          { tier: 'default', max: 100, windowMs: 60_000 },
        ],
      },
    });
    try {
      const d = s.daemon;
      const { sessionId } = await newSession(d);
      assert.equal((await d.json('GET', `/session/${sessionId}/status`)).status, 200);
      const read = await d.json('GET', `/session/${sessionId}/context`);
      assert.equal(read.status, 429);
      assert.equal(read.body.tier, 'read');
      const heartbeat = await d.json('POST', `/session/${sessionId}/heartbeat`, {});
      assert.equal(heartbeat.status, 200);
      assert.equal(heartbeat.headers.get('x-ratelimit-limit'), '100');
    } finally {
      await s.close();
    }
  });

  it('advertises rate_limit and the tiers in /capabilities only when configured', async () => {
    const s = await startStack({
      config: { rateLimits: [{ tier: 'prompt', max: 10, windowMs: 60_000 }, { tier: 'read', max: 600, windowMs: 60_000 }] },
    });
    const plain = await startStack();
    try {
      const caps = (await s.daemon.json('GET', '/capabilities')).body;
      assert.ok(caps.features.includes('rate_limit'));
      assert.deepEqual(caps.limits.rateLimits, { prompt: { max: 10, windowMs: 60_000 }, read: { max: 600, windowMs: 60_000 } });
      const none = (await plain.daemon.json('GET', '/capabilities')).body;
      assert.ok(!none.features.includes('rate_limit'));
      assert.equal(none.limits.rateLimits, undefined);
    } finally {
      await s.close();
      await plain.close();
    }
  });
});
