import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactStoreUrl, resolveStoreChoice, StoreConfigError } from '../../../src/config/store.js';

describe('choosing the store engine', () => {
  it('is SQLite unless --store or BERTH_STORE_URL is set, and the flag wins', () => {
    assert.deepEqual(resolveStoreChoice(undefined, {}), { engine: 'sqlite' });
    assert.deepEqual(resolveStoreChoice('  ', { BERTH_STORE_URL: '' }), { engine: 'sqlite' });
    assert.deepEqual(resolveStoreChoice(undefined, { BERTH_STORE_URL: 'postgres://u@db:5432/berth' }), { engine: 'postgres', url: 'postgres://u@db:5432/berth' });
    assert.deepEqual(resolveStoreChoice('postgresql://a@h/x', { BERTH_STORE_URL: 'postgres://u@db/berth' }), { engine: 'postgres', url: 'postgresql://a@h/x' });
  });

  it('refuses what is not a PostgreSQL URL naming a database, saying where it came from', () => {
    assert.throws(() => resolveStoreChoice('sqlite:///tmp/x.db', {}), (e: Error) => e instanceof StoreConfigError && /--store must be a postgres/.test(e.message));
    assert.throws(() => resolveStoreChoice(undefined, { BERTH_STORE_URL: 'not a url' }), /BERTH_STORE_URL is not a URL/);
    assert.throws(() => resolveStoreChoice('postgres://u@h:5432/', {}), /names no database/);
  });

  it('never shows the password', () => {
    assert.equal(redactStoreUrl('postgres://u:s3cret@h:5432/db'), 'postgres://u:***@h:5432/db');
    assert.equal(redactStoreUrl('postgres://u@h/db'), 'postgres://u@h/db');
    assert.doesNotMatch(redactStoreUrl('::'), /::/);
  });
});
