import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, openStream } from '../support/spawned-client.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../support/postgres.js';
import { startSpawnedStack, type SpawnedStack } from '../support/spawned-stack.js';

/**
 * A cluster node whose PostgreSQL restarts (docs/store.md, Reconnecting): while the
 * database is away the node answers 503, retryable, and /health says degraded;
 * once it is back the same process, never restarted, takes its session again and
 * runs a turn on it, and creates new sessions.
 */
const missing = postgresMissing();
/** Short, so the outage outlasts the lease and the node must take its session again. */
const LEASE_MS = '1500';

let server: PostgresServer;
let url: string;
let spawned: SpawnedStack;

before(async () => {
  if (missing) return;
  server = await startPostgres();
  url = await server.createDatabase();
  spawned = await startSpawnedStack();
});
after(async () => {
  await spawned?.close();
  await server?.stop();
});

const turnOn = async (base: string, sessionId: string, clientId: string, text: string) => {
  const stream = await openStream(base, sessionId, {});
  try {
    const prompt = await call(base, 'POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text }] }, { 'x-qwen-client-id': clientId });
    assert.equal(prompt.status, 202, JSON.stringify(prompt.body));
    await stream.until((e) => e.type === 'turn_complete' && (e.data as { promptId?: string }).promptId === prompt.body.promptId);
  } finally {
    stream.close();
  }
};

test('a node answers 503 while its database is down and serves its session again once it is back', { skip: missing, timeout: 120_000 }, async () => {
  const node = await spawned.serve('--store', url, '--node-id', 'a', '--lease-ms', LEASE_MS);
  const created = await call(node.url, 'POST', '/session', { sessionScope: 'thread' });
  assert.equal(created.status, 200);
  const { sessionId } = created.body;

  await server.halt();
  const refused = await call(node.url, 'POST', '/session', { sessionScope: 'thread' });
  assert.equal(refused.status, 503, JSON.stringify(refused.body));
  assert.equal(refused.body.retryable, true);
  const health = await call(node.url, 'GET', '/health');
  assert.equal(health.status, 503);
  assert.equal(health.body.status, 'degraded');
  assert.equal(health.body.readiness.store.ready, false);
  // A lease time without a renewal: the node gives its session up (docs/cluster-leases.md).
  for (;;) {
    if ((await call(node.url, 'GET', '/health')).body.readiness.node.leases === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }

  await server.resume();
  for (;;) {
    if ((await call(node.url, 'GET', '/health')).status === 200) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  // Taken again on a new epoch: the client attaches anew, as after any takeover.
  const loaded = await call(node.url, 'POST', `/session/${sessionId}/load`, {});
  assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
  spawned.model.enqueue({ kind: 'reply', text: 'Still here.' });
  await turnOn(node.url, sessionId, loaded.body.clientId, 'Are you there?');
  const again = await call(node.url, 'POST', '/session', { sessionScope: 'thread' });
  assert.equal(again.status, 200, JSON.stringify(again.body));
});
