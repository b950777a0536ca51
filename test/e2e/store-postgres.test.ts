import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { runTurn } from '../support/history.js';
import { startPostgres, postgresMissing, type PostgresServer } from '../support/postgres.js';
import { newSession } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * Issue 18, the store on PostgreSQL: a daemon started with a `postgres://` store
 * keeps its sessions, transcripts and receipts there and nothing in its home's
 * SQLite file; a second daemon on the same database (the first stopped) lists,
 * loads and pages the session, and the write its turn made has exactly one
 * completed receipt. Two daemons on one database at once are refused until
 * sessions are owned per node.
 */
const missing = postgresMissing();

describe('the daemon on a PostgreSQL store', { skip: missing, timeout: 180_000 }, () => {
  let server: PostgresServer;
  let url: string;
  let workspace: string;
  before(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    workspace = tempDir('berth-ws-pg-');
  });
  after(async () => {
    await server?.stop();
    removeDir(workspace);
  });

  const start = (): Promise<Stack> => startStack({ workspace, keep: true, config: { store: { engine: 'postgres', url } } });

  test('a turn with a write is stored there and read back by the next daemon', async () => {
    const first = await start();
    let sessionId: string;
    try {
      const d = first.daemon;
      assert.equal(d.daemon.store.engine, 'postgres');
      const opened = await newSession(d, { approvalMode: 'yolo' });
      sessionId = opened.sessionId;
      first.model.enqueue(
        {
          kind: 'reply',
          text: 'Writing the plan.',
          toolCalls: [{ id: 'call_plan', name: 'workspace_write', arguments: { path: 'plan.md', content: '# Plan\n', expectedSha256: null } }],
        },
        { kind: 'reply', text: 'The plan is written.' },
      );
      const turn = await runTurn(d, sessionId, 'Write the plan', opened.clientId);
      assert.equal(turn.terminal.type, 'turn_complete');
      assert.equal(readFileSync(join(workspace, 'plan.md'), 'utf8'), '# Plan\n');
      // Sessions are not owned per node yet: a second daemon on the same database is refused while this one runs.
      await assert.rejects(start(), /another Berth daemon is using the database/);
    } finally {
      await first.close();
    }

    // Straight from the database: the rows are in PostgreSQL.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const sessions = await client.query('SELECT id FROM sessions WHERE id = $1', [sessionId]);
      assert.equal(sessions.rowCount, 1);
      const receipts = await client.query(`SELECT status FROM receipts WHERE tool_name = 'workspace_write'`);
      assert.deepEqual(receipts.rows.map((r) => r.status), ['completed']);
      const records = await client.query('SELECT count(*)::int AS n FROM transcript WHERE session_id = $1', [sessionId]);
      assert.ok(records.rows[0].n >= 4, `transcript rows: ${records.rows[0].n}`);
    } finally {
      await client.end();
    }

    const second = await start();
    try {
      const d = second.daemon;
      const list = await d.json('GET', '/sessions');
      assert.equal(list.status, 200);
      assert.ok(list.body.sessions.some((s: { sessionId: string }) => s.sessionId === sessionId), JSON.stringify(list.body));
      const loaded = await d.json('POST', `/session/${sessionId}/load`, {});
      assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
      const kinds = loaded.body.compactedReplay.map((e: { data: { update?: { sessionUpdate?: string } } }) => e.data.update?.sessionUpdate).filter(Boolean);
      assert.ok(kinds.includes('tool_call') && kinds.includes('agent_message_chunk'), kinds.join(','));
      second.model.enqueue({ kind: 'reply', text: 'Still here.' });
      const again = await runTurn(d, sessionId, 'Are you there?', loaded.body.clientId);
      assert.equal(again.terminal.type, 'turn_complete');
    } finally {
      await second.close();
    }
  });
});
