import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_CLIENTS_PER_SESSION } from '../../src/sessions/limits.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { createSession } from '../support/session-client.js';

/**
 * spec §2.6: every attach without a registered client id mints a new one, so
 * the shared (`single`) session of a long-running daemon would otherwise keep
 * every id it ever issued. It holds MAX_CLIENTS_PER_SESSION; a new id makes
 * room by dropping the least recently used, whose holder then gets the
 * `invalid_client_id` the SDK heals from.
 */
let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(() => d.close());

const heartbeat = (sessionId: string, clientId: string) =>
  d.json('POST', `/session/${sessionId}/heartbeat`, {}, { 'x-qwen-client-id': clientId });

test(`a shared session attached more than ${MAX_CLIENTS_PER_SESSION} times forgets its least recently used client id`, async () => {
  const ids: string[] = [];
  let sessionId = '';
  for (let batch = 0; ids.length < MAX_CLIENTS_PER_SESSION; batch++) {
    const count = Math.min(32, MAX_CLIENTS_PER_SESSION - ids.length);
    const answers = await Promise.all(Array.from({ length: count }, () => createSession(d)));
    for (const a of answers) {
      assert.equal(a.status, 200);
      sessionId ||= a.body.sessionId;
      assert.equal(a.body.sessionId, sessionId, 'every attach reaches the one shared session');
      ids.push(a.body.clientId);
    }
  }
  assert.equal(new Set(ids).size, MAX_CLIENTS_PER_SESSION);
  // The oldest id is used again, so the second oldest is now the least recently used.
  assert.equal((await heartbeat(sessionId, ids[0]!)).status, 200);

  const newest = await createSession(d);
  assert.equal(newest.status, 200);

  const dropped = await heartbeat(sessionId, ids[1]!);
  assert.equal(dropped.status, 400);
  assert.equal(dropped.body.code, 'invalid_client_id');
  assert.equal((await heartbeat(sessionId, ids[0]!)).status, 200, 'the id used recently stays');
  assert.equal((await heartbeat(sessionId, newest.body.clientId)).status, 200);
  const status = await d.json('GET', `/session/${sessionId}/status`);
  assert.equal(status.body.clientCount, MAX_CLIENTS_PER_SESSION);
});
