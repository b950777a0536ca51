import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveBusUrl } from '../../../src/config/bus.js';
import { ConfigError, resolveConfig } from '../../../src/config/config.js';

const postgres = { engine: 'postgres', url: 'postgres://berth@db/berth' } as const;
const sqlite = { engine: 'sqlite' } as const;
const node = { nodeId: 'node-1', leaseMs: 10_000 };

describe('the cluster bus setting', () => {
  it('is absent unless --bus or BERTH_BUS_URL names one, and the flag wins', () => {
    assert.equal(resolveBusUrl(undefined, {}, postgres, node), null);
    assert.equal(resolveBusUrl(' ', { BERTH_BUS_URL: '' }, postgres, node), null);
    assert.equal(resolveBusUrl(undefined, { BERTH_BUS_URL: 'nats://env:4222' }, postgres, node), 'nats://env:4222');
    assert.equal(resolveBusUrl('nats://flag:4222', { BERTH_BUS_URL: 'nats://env:4222' }, postgres, node), 'nats://flag:4222');
  });

  it('refuses a URL that is not nats:// or tls://, without printing its password', () => {
    assert.throws(() => resolveBusUrl('not a url', {}, postgres, node), ConfigError);
    assert.throws(
      () => resolveBusUrl('http://user:secret@bus:4222', {}, postgres, node),
      (err: Error) => err instanceof ConfigError && /nats:\/\//.test(err.message) && !err.message.includes('secret'),
    );
  });

  it('refuses a bus with the SQLite store, saying PostgreSQL is needed', () => {
    assert.throws(() => resolveBusUrl('nats://bus:4222', {}, sqlite, node), (err: Error) => err instanceof ConfigError && /PostgreSQL store/.test(err.message));
  });

  it('refuses a bus without a node id, from the flag or the environment, saying which setting is missing', () => {
    const refusedFor = (source: RegExp) => (err: Error) => err instanceof ConfigError && source.test(err.message) && /--node-id or BERTH_NODE_ID/.test(err.message);
    assert.throws(() => resolveBusUrl('nats://bus:4222', {}, postgres, null), refusedFor(/^--bus /));
    assert.throws(() => resolveBusUrl(undefined, { BERTH_BUS_URL: 'nats://bus:4222' }, postgres, null), refusedFor(/^BERTH_BUS_URL /));
  });

  it('is refused by the daemon configuration when the node id is missing, and accepted with it', () => {
    const home = '/tmp/berth-bus-config';
    const storeUrl = 'postgres://berth@db/berth';
    assert.throws(() => resolveConfig({ home, storeUrl, busUrl: 'nats://bus:4222' }, {}), { name: 'ConfigError', message: /needs a node id/ });
    assert.throws(() => resolveConfig({ home, storeUrl }, { BERTH_BUS_URL: 'nats://bus:4222' }), { name: 'ConfigError', message: /needs a node id/ });
    const joined = resolveConfig({ home, storeUrl, busUrl: 'nats://bus:4222' }, { BERTH_NODE_ID: 'node-1' });
    assert.equal(joined.bus, 'nats://bus:4222');
    assert.equal(joined.cluster?.nodeId, 'node-1');
  });
});
