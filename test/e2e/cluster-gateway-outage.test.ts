import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AUTH, clusterChannelToken, clusterMissing, startClusterNodes, type ClusterNodes } from '../support/cluster-nodes.js';
import { channelPathFor, dialChannel, INTENTION, WORKSPACE_ID } from '../support/gateway.js';
import { call } from '../support/spawned-client.js';

/**
 * Gateway channel admission while the cluster's PostgreSQL is away (docs/cluster-bus.md,
 * channel limits count every node): the node cannot count the cluster's channels, so it refuses
 * the dial with a retryable 503 `storage_unavailable` and keeps no slot for it; once the database is back the same
 * token is admitted, although its limit is one channel.
 */
const missing = clusterMissing();
let cluster: ClusterNodes;
let token: string;

before(async () => {
  if (missing) return;
  cluster = await startClusterNodes(['n1'], 1500, ['--remote-workspace', `${WORKSPACE_ID}=${INTENTION}`, '--max-channels-per-token', '1']);
  token = await clusterChannelToken(cluster.storeUrl, WORKSPACE_ID);
});
after(async () => {
  await cluster?.close();
});

test('a channel dialled while PostgreSQL is down is refused 503, retryable, and admitted once it is back', { skip: missing, timeout: 120_000 }, async () => {
  const url = cluster.node('n1').url;
  const dial = () => dialChannel(url, channelPathFor(), { authorization: `Bearer ${token}` });
  await cluster.database.halt();
  try {
    for (let i = 0; i < 3; i++) {
      const refused = await dial();
      assert.equal(refused.ok, false, 'no channel without the cluster count');
      if (refused.ok) return;
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      assert.equal(refused.body.retryable, true);
      assert.equal(refused.body.code, 'storage_unavailable');
    }
  } finally {
    await cluster.database.resume();
  }
  for (;;) {
    if ((await call(url, 'GET', '/health', undefined, AUTH)).status === 200) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const admitted = await dial();
  assert.equal(admitted.ok, true, JSON.stringify(!admitted.ok && admitted.body));
  if (admitted.ok) await admitted.channel.close();
});
