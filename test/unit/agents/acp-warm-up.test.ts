import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rehearseAcp } from '../../../src/agents/acp/warm-up.js';

test('the in-memory ACP rehearsal completes its exchange and closes both ends (it can run again)', async () => {
  await rehearseAcp();
  const started = performance.now();
  await rehearseAcp();
  // Nothing waits on a timer or a peer: a second run is a few in-memory round trips.
  assert.ok(performance.now() - started < 5_000);
});
