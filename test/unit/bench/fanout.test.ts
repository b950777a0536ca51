import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const { spreads } = (await import(new URL('../../../bench/fanout.mjs', import.meta.url).href)) as { spreads: (d: unknown) => number[] };

const ms = (n: number) => BigInt(Math.round(n * 1e6));
const stream = (arrivals: Record<string, number>) => ({ arrivals: new Map(Object.entries(arrivals).map(([id, at]) => [id, ms(at)])) });

describe('the fan-out bench', () => {
  it('takes a frame’s spread from its first to its last stream, whichever stream is first', () => {
    const d = { streams: [stream({ '1': 10, '2': 20 }), stream({ '1': 9, '2': 23.5 }), stream({ '1': 12, '2': 21 })] };
    assert.deepEqual(spreads(d), [3, 3.5]);
  });

  it('leaves out a frame that did not reach every stream', () => {
    const d = { streams: [stream({ '1': 10, '2': 20 }), stream({ '2': 22 })] };
    assert.deepEqual(spreads(d), [2]);
  });
});
