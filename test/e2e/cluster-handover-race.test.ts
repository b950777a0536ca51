import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { postgresMissing, startPostgres, type PostgresServer } from '../support/postgres.js';
import { newSession, submit } from '../support/session-client.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * A prompt racing a handover (docs/cluster-leases.md, Drain): its row is being written when
 * the node hands the session over. The session is not gone — another node serves it next —
 * so the client is told 503 `session_on_other_node` and retries, never 404 `session_not_found`.
 * The race is made certain by holding the session's lease row locked, so the prompt's
 * fenced write waits, while the handover happens.
 */
const missing = postgresMissing();

let server: PostgresServer;
let node: Stack;
let db: pg.Client;

before(async () => {
  if (missing) return;
  server = await startPostgres();
  const url = await server.createDatabase();
  node = await startStack({ config: { store: { engine: 'postgres', url }, cluster: { nodeId: 'a', leaseMs: 60_000 } } });
  db = new pg.Client({ connectionString: url });
  await db.connect();
});
after(async () => {
  await db?.end();
  await node?.close();
  await server?.stop();
});

/** Resolves once some statement of this database waits on a row lock. */
async function someoneWaitsOnALock(): Promise<void> {
  for (;;) {
    const waiting = await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    if (waiting.rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a prompt whose row is being written when its session is handed over is told to retry elsewhere, not that the session is gone', { skip: missing, timeout: 60_000 }, async () => {
  const { sessionId, clientId } = await newSession(node.daemon);
  await db.query('BEGIN');
  await db.query('SELECT 1 FROM session_leases WHERE session_id = $1 FOR UPDATE', [sessionId]);
  const prompt = submit(node.daemon, sessionId, 'Caught in the handover', {}, { 'x-qwen-client-id': clientId });
  await someoneWaitsOnALock();
  node.daemon.daemon.core.sessions.handOver(sessionId);
  await db.query('COMMIT');
  const answer = await prompt;
  assert.equal(answer.status, 503, JSON.stringify(answer.body));
  assert.equal(answer.body.code, 'session_on_other_node');
  assert.equal(answer.body.retryable, true);
  await node.daemon.daemon.core.sessions.written();
  const rows = await db.query('SELECT started_at, terminal FROM prompts WHERE session_id = $1', [sessionId]);
  // Settled as refused: the next owner finds nothing to recover, so no phantom `daemon_lost` prompt shows in the transcript.
  assert.deepEqual(rows.rows, [{ started_at: null, terminal: 'removed' }], 'the refused prompt never ran and is settled');
  // The next owner (this node again, its lease given back) finds nothing to recover for it.
  const reopened = await node.daemon.json('GET', `/session/${sessionId}/status`);
  assert.equal(reopened.status, 200, JSON.stringify(reopened.body));
  const transcript = await node.daemon.json('GET', `/session/${sessionId}/transcript?limit=200`);
  const phantom = transcript.body.events.filter((e: { type: string }) => e.type === 'turn_error' || e.type === 'user_message');
  assert.deepEqual(phantom, [], 'the transcript shows no trace of the refused prompt');
});
