import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectNats } from '../../../src/cluster/nats-transport.js';
import { BusNode } from '../../../src/cluster/bus-node.js';
import { systemClock } from '../../../src/clock.js';
import { silentLogger } from '../../../src/log.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { natsMissing, startNats } from '../../support/nats.js';

/** Waits until `condition` holds, checking once per turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
}

describe('a node whose NATS server went away', { skip: natsMissing() }, () => {
  it('reports the bus unreachable, refuses forwarding and following with 503 owner_unreachable, and still closes', async () => {
    const nats = await startNats();
    const node = new BusNode({
      transport: await connectNats(nats.url, 'front'),
      placement: { nodeId: 'front', locate: async () => ({ kind: 'remote', nodeId: 'owner' }) },
      clock: systemClock,
      log: silentLogger(),
    });
    try {
      assert.equal(node.reachable(), true);
      await nats.stop();
      await until(() => !node.reachable());
      const unreachable = (err: BerthError) => err.code === 'owner_unreachable' && err.details.reason === 'unreachable';
      await assert.rejects(node.forward('owner', { method: 'GET', url: '/session/x/status', headers: {} }), unreachable);
      await assert.rejects(node.follow('11111111-2222-4333-8444-555555555555', 'owner', {}), unreachable);
    } finally {
      // A daemon stopping during the outage must not wait for the server to come back.
      await node.close();
      await nats.stop();
    }
  });
});
