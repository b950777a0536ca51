import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveBusUrl } from '../../../src/config/bus.js';
import { ConfigError } from '../../../src/config/config.js';

const postgres = { engine: 'postgres', url: 'postgres://berth@db/berth' } as const;
const sqlite = { engine: 'sqlite' } as const;

describe('the cluster bus setting', () => {
  it('is absent unless --bus or BERTH_BUS_URL names one, and the flag wins', () => {
    assert.equal(resolveBusUrl(undefined, {}, postgres), null);
    assert.equal(resolveBusUrl(' ', { BERTH_BUS_URL: '' }, postgres), null);
    assert.equal(resolveBusUrl(undefined, { BERTH_BUS_URL: 'nats://env:4222' }, postgres), 'nats://env:4222');
    assert.equal(resolveBusUrl('nats://flag:4222', { BERTH_BUS_URL: 'nats://env:4222' }, postgres), 'nats://flag:4222');
  });

  it('refuses a URL that is not nats:// or tls://, without printing its password', () => {
    assert.throws(() => resolveBusUrl('not a url', {}, postgres), ConfigError);
    assert.throws(
      () => resolveBusUrl('http://user:secret@bus:4222', {}, postgres),
      (err: Error) => err instanceof ConfigError && /nats:\/\//.test(err.message) && !err.message.includes('secret'),
    );
  });

  it('refuses a bus with the SQLite store, saying PostgreSQL is needed', () => {
    assert.throws(() => resolveBusUrl('nats://bus:4222', {}, sqlite), (err: Error) => err instanceof ConfigError && /PostgreSQL store/.test(err.message));
  });
});
