import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AUTH, clusterMissing, startClusterNodes, type ClusterNodes } from '../support/cluster-nodes.js';
import { call, openStream } from '../support/spawned-client.js';

/**
 * An owner killed without a word (docs/cluster-bus.md, Following a session from another node):
 * a client follows a session through node 2 while node 1 runs it; node 1 is SIGKILLed, so no
 * `down` is said. Node 2 sees node 1's lease run out and ends the stream by itself, with no
 * request from anyone and no new owner yet; the client's reconnect with its old cursor resyncs.
 */
const missing = clusterMissing();
const LEASE_MS = 1500;

let cluster: ClusterNodes;

before(async () => {
  if (missing) return;
  cluster = await startClusterNodes(['n1', 'n2'], LEASE_MS);
});
after(async () => {
  await cluster?.close();
});

test('a follower’s stream ends once its killed owner’s lease has run out, without any new request', { skip: missing, timeout: 120_000 }, async () => {
  const created = await call(cluster.node('n1').url, 'POST', '/session', { sessionScope: 'thread' }, AUTH);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const { sessionId } = created.body;
  const follower = await openStream(cluster.node('n2').url, sessionId, { ...AUTH, 'last-event-id': '0' });
  const oldEpoch = follower.epoch;
  const lastSeen = Math.max(0, ...follower.seen.map((e) => e.id ?? 0));

  await cluster.node('n1').kill();
  const killedAt = performance.now();
  // A stream left waiting for a new owner's first event would never end here: nothing makes one.
  const ended = await Promise.race([
    follower.ended().then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 20 * LEASE_MS).unref()),
  ]);
  const tookMs = Math.round(performance.now() - killedAt);
  process.stdout.write(`follower's stream ended ${tookMs} ms after the kill (lease ${LEASE_MS} ms)\n`);
  assert.equal(ended, true, `the stream on node 2 was still open ${tookMs} ms after the kill`);

  const reconnect = await openStream(cluster.node('n2').url, sessionId, { ...AUTH, 'last-event-id': String(lastSeen), 'x-qwen-event-epoch': oldEpoch });
  try {
    assert.notEqual(reconnect.epoch, oldEpoch, 'node 2 took the session over under a new epoch');
    const resync = await reconnect.until((e) => e.type === 'state_resync_required');
    assert.equal((resync.data as any).reason, 'epoch_reset');
  } finally {
    reconnect.close();
  }
});
