import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { probeStore } from '../../../src/cluster/readiness.js';
import { HealthRegistry } from '../../../src/health.js';
import type { Queryer } from '../../../src/store/pg/db.js';

/** A store whose `rows` answers as `answer` says. */
const storeThat = (answer: () => Promise<unknown[]>): Queryer => ({
  rows: answer as Queryer['rows'],
  run: async () => 0,
  script: async () => undefined,
});

describe('readiness', () => {
  it('a store that answers is ready; one that fails or never answers is not', async () => {
    assert.deepEqual(await probeStore(storeThat(async () => [{ ok: 1 }])), { name: 'store', ready: true });
    assert.equal((await probeStore(storeThat(() => Promise.reject(new Error('connection refused'))))).ready, false);
    const silent = await probeStore(storeThat(() => new Promise(() => undefined)), 1);
    assert.deepEqual(silent, { name: 'store', ready: false, detail: { error: 'the store did not answer' } });
    const reconnecting = { ...storeThat(async () => [{ ok: 1 }]), connected: false };
    assert.deepEqual(await probeStore(reconnecting), { name: 'store', ready: false, detail: { error: 'reconnecting to the store' } });
  });

  it('a registry without probes has nothing to say; with probes it names the first that is not ready', async () => {
    const health = new HealthRegistry();
    assert.equal(await health.readiness(), null);
    health.probe(async () => ({ name: 'store', ready: true }));
    assert.deepEqual(await health.readiness(), { ready: true, checks: { store: { ready: true } } });
    health.probe(async () => ({ name: 'bus', ready: false, detail: { error: 'no route' } }));
    assert.deepEqual(await health.readiness(), {
      ready: false,
      reason: 'bus_not_ready',
      checks: { store: { ready: true }, bus: { ready: false, error: 'no route' } },
    });
  });
});
