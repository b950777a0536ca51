import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LEASE_MS, resolveClusterChoice } from '../../../src/config/cluster.js';
import { resolveConfig } from '../../../src/config/config.js';

describe('choosing cluster mode', () => {
  it('is off without a node id, and the flag wins over BERTH_NODE_ID', () => {
    assert.equal(resolveClusterChoice({}, {}, 'postgres'), null);
    assert.equal(resolveClusterChoice({ nodeId: ' ' }, { BERTH_NODE_ID: '' }, 'sqlite'), null);
    assert.deepEqual(resolveClusterChoice({}, { BERTH_NODE_ID: 'node-1' }, 'postgres'), { nodeId: 'node-1', leaseMs: DEFAULT_LEASE_MS });
    assert.deepEqual(resolveClusterChoice({ nodeId: 'a-b_c', leaseMs: 900 }, { BERTH_NODE_ID: 'env', BERTH_LEASE_MS: '5000' }, 'postgres'), { nodeId: 'a-b_c', leaseMs: 900 });
    assert.deepEqual(resolveClusterChoice({}, { BERTH_NODE_ID: 'n', BERTH_LEASE_MS: '5000' }, 'postgres'), { nodeId: 'n', leaseMs: 5000 });
  });

  it('refuses an id that is not short and plain, a lease time out of bounds, and a SQLite store, saying where it came from', () => {
    assert.throws(() => resolveClusterChoice({ nodeId: 'node 1' }, {}, 'postgres'), /--node-id must be 1-64 characters/);
    // A dot would split the node's NATS subjects (berth.node.<id>.http).
    assert.throws(() => resolveClusterChoice({ nodeId: 'node.1' }, {}, 'postgres'), /--node-id must be 1-64 characters/);
    assert.throws(() => resolveClusterChoice({}, { BERTH_NODE_ID: 'x'.repeat(65) }, 'postgres'), /BERTH_NODE_ID must be 1-64 characters/);
    assert.throws(() => resolveClusterChoice({ nodeId: 'n', leaseMs: 10 }, {}, 'postgres'), /lease time must be/);
    assert.throws(() => resolveClusterChoice({}, { BERTH_NODE_ID: 'n', BERTH_LEASE_MS: 'soon' }, 'postgres'), /lease time must be/);
    assert.throws(() => resolveClusterChoice({ nodeId: 'n' }, {}, 'sqlite'), /--node-id needs a PostgreSQL store/);
  });

  it('reaches the configuration as a ConfigError, and leaves a daemon without it unchanged', () => {
    assert.throws(() => resolveConfig({ nodeId: 'n', home: '/tmp/berth-cluster-config' }, {}), { name: 'ConfigError', message: /needs a PostgreSQL store/ });
    assert.equal(resolveConfig({ home: '/tmp/berth-cluster-config' }, {}).cluster, null);
    const clustered = resolveConfig({ nodeId: 'n', storeUrl: 'postgres://u@h/db', home: '/tmp/berth-cluster-config' }, {});
    assert.deepEqual(clustered.cluster, { nodeId: 'n', leaseMs: DEFAULT_LEASE_MS });
  });
});
