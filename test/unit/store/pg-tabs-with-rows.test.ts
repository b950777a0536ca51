import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PgModuleTabRepository, TabsWithRows } from '../../../src/store/pg/module-tabs.js';
import { PgSessionRepository } from '../../../src/store/pg/sessions.js';
import { openPgStore, type PgStore } from '../../../src/store/pg/store.js';
import { queriesOf } from '../../support/pg-queries.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../../support/postgres.js';
import { NOW, session } from './cases/fixtures.js';

/**
 * docs/store.md, Round trips: a daemon's new session gets its tab number in its row's
 * transaction, so opening it as a tab asks PostgreSQL nothing more.
 */
const missing = postgresMissing();

describe('tab numbers given with session rows', { skip: missing, timeout: 120_000 }, () => {
  let server: PostgresServer;
  let store: PgStore;
  let sessions: PgSessionRepository;
  let tabs: PgModuleTabRepository;
  let plain: PgSessionRepository;

  before(async () => {
    server = await startPostgres();
    store = await openPgStore(await server.createDatabase());
    const given = new TabsWithRows();
    sessions = new PgSessionRepository(store.db, given);
    tabs = new PgModuleTabRepository(store.db, given);
    plain = new PgSessionRepository(store.db);
  });
  after(async () => {
    await store?.close();
    await server?.stop();
  });


  it('the row and the number go in one query, and the tab is then known without asking', async () => {
    const inserted = await queriesOf(() => sessions.insert(session('a', { workspaceId: 'wa' })));
    assert.equal(inserted.count, 1);
    assert.deepEqual(await tabs.find('a'), { tab: 1, workspaceId: 'wa' });
    const opened = await queriesOf(() => tabs.assign('a', 'wa', NOW));
    assert.deepEqual(opened, { count: 0, result: 1 });
    await sessions.insert(session('b', { workspaceId: 'wa' }));
    await sessions.insert(session('c', { workspaceId: 'wb' }));
    assert.equal(await tabs.assign('b', 'wa', NOW), 2);
    assert.equal(await tabs.assign('c', 'wb', NOW), 1);
    // Asked again (a restored session), the store answers as before.
    assert.deepEqual(await queriesOf(() => tabs.assign('a', 'wa', NOW)), { count: 1, result: 1 });
  });

  it('a row refused takes no number', async () => {
    await sessions.insert(session('d', { workspaceId: 'wd' }));
    await assert.rejects(sessions.insert(session('d', { workspaceId: 'wd' })), { code: '23505' });
    await sessions.insert(session('e', { workspaceId: 'wd' }));
    assert.equal(await tabs.assign('e', 'wd', NOW), 2);
  });

  it('without them a row is only a row', async () => {
    await plain.insert(session('f', { workspaceId: 'wf' }));
    assert.equal(await tabs.find('f'), undefined);
    assert.equal(await tabs.assign('f', 'wf', NOW), 1);
  });
});
