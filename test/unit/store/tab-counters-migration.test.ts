import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MIGRATIONS } from '../../../src/store/migrations/all.js';
import { SqliteModuleTabRepository } from '../../../src/store/repos/module-tabs.js';
import { PgModuleTabRepository } from '../../../src/store/pg/module-tabs.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../../support/postgres.js';
import { pgMigratedFrom, sqliteMigratedFrom } from '../../support/migrated-store.js';

// A store made before the counters existed: two workspaces already numbered their tabs.
const BEFORE = MIGRATIONS.filter((m) => m.id < 17);
const session = (id: string): string => `('${id}', 'w', 'thread', 1, 1, 'default')`;
const SESSIONS = `INSERT INTO sessions (id, workspace_id, scope, created_at, updated_at, approval_mode) VALUES ${['a', 'b', 'c', 'x', 'y', 'z'].map(session).join(', ')}`;
const TABS = `INSERT INTO module_tabs (session_id, workspace_id, tab, created_at) VALUES ('a', 'w1', 1, 1), ('b', 'w1', 2, 1), ('c', 'w2', 1, 1)`;

describe('migration 17 counts on from the tabs already given', () => {
  it('on SQLite', () =>
    sqliteMigratedFrom(BEFORE, [SESSIONS, TABS], async (store) => {
      const tabs = new SqliteModuleTabRepository(store.db);
      assert.deepEqual([await tabs.assign('x', 'w1', 2), await tabs.assign('y', 'w2', 2), await tabs.assign('z', 'w3', 2)], [3, 2, 1]);
    }));

  describe('on PostgreSQL', { skip: postgresMissing() }, () => {
    let server: PostgresServer;
    before(async () => {
      server = await startPostgres();
    });
    after(() => server?.stop());

    it('numbers the next tab of each workspace after its last', async () =>
      pgMigratedFrom(await server.createDatabase(), BEFORE, [SESSIONS, TABS], async (store) => {
        const tabs = new PgModuleTabRepository(store.db);
        assert.deepEqual([await tabs.assign('x', 'w1', 2), await tabs.assign('y', 'w2', 2), await tabs.assign('z', 'w3', 2)], [3, 2, 1]);
      }));
  });
});
