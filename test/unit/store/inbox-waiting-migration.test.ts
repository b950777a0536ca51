import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MIGRATIONS } from '../../../src/store/migrations/all.js';
import { SqliteModuleInboxRepository } from '../../../src/store/repos/module-inbox.js';
import { PgModuleInboxRepository } from '../../../src/store/pg/module-inbox.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../../support/postgres.js';
import { pgMigratedFrom, sqliteMigratedFrom } from '../../support/migrated-store.js';

// A store made before the waiting counts existed: its inboxes already hold messages.
const BEFORE = MIGRATIONS.filter((m) => m.id < 8);
const SESSIONS = `INSERT INTO sessions (id, workspace_id, scope, created_at, updated_at, approval_mode) VALUES ('r1', 'w', 'thread', 1, 1, 'default'), ('r2', 'w', 'thread', 1, 1, 'default')`;
const message = (id: string, to: string): string =>
  `INSERT INTO module_inbox (id, to_session_id, from_session_id, from_tab, from_label, kind, text, hop, sent_at) VALUES ('${id}', '${to}', 's', 1, 'tab 1', 'info', 't', 0, 1)`;
const ROWS = [message('a', 'r1'), message('b', 'r1'), message('c', 'r1'), message('d', 'r2')];

describe('migration 8 counts the messages already waiting', () => {
  it('on SQLite', () =>
    sqliteMigratedFrom(BEFORE, [SESSIONS, ...ROWS], async (store) => {
      const box = new SqliteModuleInboxRepository(store.db);
      assert.deepEqual([await box.count('r1'), await box.count('r2'), await box.count('none')], [3, 1, 0]);
      assert.equal(await box.take('a', 'r1'), true);
      assert.equal(await box.count('r1'), 2);
    }));

  describe('on PostgreSQL', { skip: postgresMissing() }, () => {
    let server: PostgresServer;
    before(async () => {
      server = await startPostgres();
    });
    after(() => server?.stop());

    it('counts them and keeps counting', async () =>
      pgMigratedFrom(await server.createDatabase(), BEFORE, [SESSIONS, ...ROWS], async (store) => {
        const box = new PgModuleInboxRepository(store.db);
        assert.deepEqual([await box.count('r1'), await box.count('r2'), await box.count('none')], [3, 1, 0]);
        assert.deepEqual((await box.takeAll('r1', true)).map((m) => m.id), ['a', 'b', 'c']);
        assert.equal(await box.count('r1'), 0);
      }));
  });
});
