import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_JSON_DEPTH } from '../../src/protocol/limits.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { assertHealthy, watchHealth } from '../support/health-watch.js';
import { newSession } from '../support/session-client.js';

/** Issue 16 #9: bodies shaped to reach a prototype or the stack limit are clear 400s, never 500s. */
let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(() => d.close());

const nested = (depth: number): unknown => {
  let v: unknown = { type: 'text', text: 'deep' };
  for (let i = 0; i < depth; i++) v = { inner: v };
  return v;
};

const nestedText = (depth: number): string =>
  '{"inner":'.repeat(depth) + '{"type":"text","text":"deep"}' + '}'.repeat(depth);

test('a body key named __proto__, constructor or toString is a 400 about that field, not a 500', async () => {
  for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    const res = await d.json('POST', '/session', `{"${key}":"x"}`);
    assert.equal(res.status, 400, `${key}: ${JSON.stringify(res.body)}`);
    assert.equal(typeof res.body.code, 'string');
  }
});

test('a prompt block nested 5,000 deep is refused with 400 nesting_too_deep and /health stays prompt', async () => {
  const { sessionId } = await newSession(d);
  const health = await watchHealth(d.url);
  for (let i = 0; i < 20; i++) {
    // Written as text: JSON.stringify itself cannot go 5,000 deep.
    const res = await d.json('POST', `/session/${sessionId}/prompt`, `{"prompt":[${nestedText(5000)}]}`);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'nesting_too_deep');
  }
  assertHealthy('deeply nested bodies', await health.stop());
  const pending = await d.json('GET', `/session/${sessionId}/pending-prompts`);
  assert.deepEqual(pending.body.pendingPrompts, [], 'nothing of a refused body was admitted');
});

test(`a body nested exactly ${MAX_JSON_DEPTH} deep is still read`, async () => {
  // The outermost object is level 1; the block at the bottom is the last level.
  const res = await d.json('POST', '/session', { metadata: nested(MAX_JSON_DEPTH - 2) });
  assert.notEqual(res.body?.code, 'nesting_too_deep');
  const over = await d.json('POST', '/session', { metadata: nested(MAX_JSON_DEPTH - 1) });
  assert.equal(over.body.code, 'nesting_too_deep');
});
