import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runTurn } from '../support/history.js';
import { startPostgres, postgresMissing, type PostgresServer } from '../support/postgres.js';
import { createSession, eventually, newSession } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * The store's database goes away and comes back (docs/store.md, Reconnecting): while it is
 * down the daemon answers a retryable 503 `storage_unavailable` and /health says degraded;
 * once it is back the same daemon, never restarted, creates and runs sessions again.
 */
const missing = postgresMissing();

describe('a daemon whose PostgreSQL restarts', { skip: missing, timeout: 180_000 }, () => {
  let server: PostgresServer;
  let stack: Stack;
  let workspace: string;
  before(async () => {
    server = await startPostgres();
    workspace = tempDir('berth-ws-pg-reconnect-');
    stack = await startStack({ workspace, keep: true, config: { store: { engine: 'postgres', url: await server.createDatabase() } } });
  });
  after(async () => {
    await stack?.close();
    await server?.stop();
    removeDir(workspace);
  });

  test('answers 503 while the database is down and works again without a restart once it is back', async () => {
    const d = stack.daemon;
    const before = await newSession(d);
    assert.equal((await d.json('GET', '/health')).status, 200);

    await server.halt();
    const refused = await createSession(d, { sessionScope: 'thread' });
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'storage_unavailable');
    assert.equal(refused.body.retryable, true);
    const listed = await d.json('GET', '/sessions');
    assert.equal(listed.status, 503, JSON.stringify(listed.body));
    const health = await d.json('GET', '/health');
    assert.equal(health.status, 503);
    assert.equal(health.body.status, 'degraded');
    assert.equal(health.body.readiness.store.ready, false);

    await server.resume();
    await eventually(() => d.json('GET', '/health'), (r) => r.status === 200);
    const opened = await newSession(d, { approvalMode: 'yolo' });
    stack.model.enqueue({ kind: 'reply', text: 'Back again.' });
    const turn = await runTurn(d, opened.sessionId, 'Are you there?', opened.clientId);
    assert.equal(turn.terminal.type, 'turn_complete');
    const list = await d.json('GET', '/sessions');
    const ids = list.body.sessions.map((s: { sessionId: string }) => s.sessionId);
    assert.ok(ids.includes(before.sessionId) && ids.includes(opened.sessionId), JSON.stringify(ids));
  });
});
