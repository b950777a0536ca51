import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../../src/store/db.js';
import { MIGRATIONS } from '../../../src/store/migrations/all.js';
import { SqliteModuleTabRepository } from '../../../src/store/repos/module-tabs.js';
import { PgModuleTabRepository } from '../../../src/store/pg/module-tabs.js';
import { openPgStore } from '../../../src/store/pg/store.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../../support/postgres.js';
import { removeDir, tempDir } from '../../support/tmp.js';

// A store made before the counters existed: two workspaces already numbered their tabs.
const BEFORE = MIGRATIONS.filter((m) => m.id < 17);
const session = (id: string): string => `('${id}', 'w', 'thread', 1, 1, 'default')`;
const SESSIONS = `INSERT INTO sessions (id, workspace_id, scope, created_at, updated_at, approval_mode) VALUES ${['a', 'b', 'c', 'x', 'y', 'z'].map(session).join(', ')}`;
const TABS = `INSERT INTO module_tabs (session_id, workspace_id, tab, created_at) VALUES ('a', 'w1', 1, 1), ('b', 'w1', 2, 1), ('c', 'w2', 1, 1)`;

describe('migration 17 counts on from the tabs already given', () => {
  it('on SQLite', async () => {
    const home = tempDir('tab-counters');
    try {
      const old = openStore(home, BEFORE);
      for (const sql of [SESSIONS, TABS]) old.db.exec(sql);
      old.close();
      const store = openStore(home);
      try {
        const tabs = new SqliteModuleTabRepository(store.db);
        assert.deepEqual([await tabs.assign('x', 'w1', 2), await tabs.assign('y', 'w2', 2), await tabs.assign('z', 'w3', 2)], [3, 2, 1]);
      } finally {
        store.close();
      }
    } finally {
      removeDir(home);
    }
  });

  describe('on PostgreSQL', { skip: postgresMissing() }, () => {
    let server: PostgresServer;
    before(async () => {
      server = await startPostgres();
    });
    after(() => server?.stop());

    it('numbers the next tab of each workspace after its last', async () => {
      const url = await server.createDatabase();
      const old = await openPgStore(url, BEFORE);
      for (const sql of [SESSIONS, TABS]) await old.db.run(sql);
      await old.close();
      const store = await openPgStore(url);
      try {
        const tabs = new PgModuleTabRepository(store.db);
        assert.deepEqual([await tabs.assign('x', 'w1', 2), await tabs.assign('y', 'w2', 2), await tabs.assign('z', 'w3', 2)], [3, 2, 1]);
      } finally {
        await store.close();
      }
    });
  });
});
