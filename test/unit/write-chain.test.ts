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

test('an ordered write is made once the write before it is made, not once it finished; a plain write still waits for both', async () => {
  const chain = new WriteChain(silentLogger(), {});
  const made: string[] = [];
  const finishers = new Map<string, () => void>();
  const held = (name: string) => () => {
    made.push(name);
    return new Promise<void>((resolve) => finishers.set(name, resolve));
  };
  chain.submitOrdered('records', held('records'), true);
  chain.submitOrdered('settle', held('settle'));
  chain.submit('row', held('row'));
  assert.deepEqual(made, [], 'the first waits for the I/O of this turn');
  await new Promise(setImmediate);
  await new Promise(setImmediate);
  assert.deepEqual(made, ['records', 'settle'], 'the second is made while the first is still running');
  finishers.get('settle')!();
  await new Promise(setImmediate);
  assert.deepEqual(made, ['records', 'settle'], 'the plain write waits for every write before it to finish');
  let flushed = false;
  const flushing = chain.flush().then(() => (flushed = true));
  finishers.get('records')!();
  while (made.length < 3) await new Promise(setImmediate);
  assert.equal(made[2], 'row');
  assert.equal(flushed, false);
  finishers.get('row')!();
  await flushing;
  assert.equal(chain.idle, true);
});
