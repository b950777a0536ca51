import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deliverToAll, holdDuringDelivery } from '../../../src/events/delivery.js';

test('outside a delivery nothing is held: the caller writes at once', () => {
  assert.equal(holdDuringDelivery({ release: () => assert.fail('never held') }), false);
});

test('writes held during a delivery are released in order when the outermost delivery ends, even if it throws', () => {
  const released: string[] = [];
  deliverToAll(() => {
    assert.equal(holdDuringDelivery({ release: () => released.push('a') }), true);
    deliverToAll(() => {
      holdDuringDelivery({ release: () => released.push('b') });
    });
    assert.deepEqual(released, [], 'a nested delivery does not release the outer one’s writes');
  });
  assert.deepEqual(released, ['a', 'b']);

  assert.throws(() =>
    deliverToAll(() => {
      holdDuringDelivery({ release: () => released.push('c') });
      throw new Error('a subscriber failed');
    }),
  );
  assert.deepEqual(released, ['a', 'b', 'c'], 'a failed delivery still releases what was held');
  assert.equal(holdDuringDelivery({ release: () => assert.fail('never held') }), false, 'and leaves no delivery open');
});
