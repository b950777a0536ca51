import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { silentLogger } from '../../src/log.js';
import { WriteChain } from '../../src/write-chain.js';

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

test('a failing write is logged under its name, and the writes around it still run in order', async () => {
  const logged: Array<{ msg: string; session?: string }> = [];
  const chain = new WriteChain(pino({ level: 'error' }, { write: (line: string) => void logged.push(JSON.parse(line)) }), { session: 's1' });
  const order: string[] = [];
  chain.submit('before', async () => void order.push('before'));
  chain.submit('answered row', async () => {
    order.push('failing');
    throw new Error('disk full');
  });
  chain.submit('after', async () => void order.push('after'));
  await chain.flush();
  assert.deepEqual(order, ['before', 'failing', 'after']);
  assert.deepEqual(
    logged.map((l) => [l.msg, l.session]),
    [['answered row failed', 's1']],
  );
  chain.submit('next', async () => void order.push('next'));
  await chain.flush();
  assert.equal(order.at(-1), 'next', 'the chain goes on after the failure');
});
