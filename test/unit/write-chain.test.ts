import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/log.js';
import { WriteChain } from '../../src/write-chain.js';

test('a write submitted after the turn lets writes submitted meanwhile go first, and flush() waits for it', async () => {
  const chain = new WriteChain(silentLogger(), {});
  const order: string[] = [];
  const record = (name: string) => async () => void order.push(name);
  chain.submitAfterTurn('late', record('late'));
  chain.submit('now', record('now'));
  assert.deepEqual(order, ['now'], 'an idle chain runs a submitted write at once; the late one waits for the turn');
  await chain.flush();
  assert.deepEqual(order, ['now', 'late']);
});

test('idle is false while a write runs and true once it settled', async () => {
  const chain = new WriteChain(silentLogger(), {});
  assert.equal(chain.idle, true);
  let finish: () => void = () => undefined;
  chain.submit('slow', () => new Promise<void>((resolve) => (finish = resolve)));
  assert.equal(chain.idle, false);
  finish();
  await chain.flush();
  assert.equal(chain.idle, true);
});
