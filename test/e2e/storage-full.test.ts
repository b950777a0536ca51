import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestDaemon, type TestDaemon, sqliteDb } from '../support/daemon.js';

/**
 * A full disk answered a non-retryable 500. SQLite is held to the pages it
 * already has (`max_page_count`), which fails every write that needs one more
 * exactly as a full disk does (SQLITE_FULL).
 */
let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(() => d.close());

test('a full disk answers 507 storage_full with retryable and Retry-After, and the refused session was never acknowledged', async () => {
  const db = sqliteDb(d.daemon);
  const pages = db.pragma('page_count', { simple: true }) as number;
  const before = (await d.json('GET', '/sessions')).body.sessions.length;
  db.pragma(`max_page_count = ${pages}`);
  let refused;
  try {
    // Enough sessions that one of them needs a new page.
    for (let i = 0; i < 200; i++) {
      const res = await d.json('POST', '/session', { sessionScope: 'thread' });
      if (res.status !== 200) {
        refused = res;
        break;
      }
    }
  } finally {
    db.pragma('max_page_count = 1073741823');
  }
  assert.ok(refused, 'the store filled up');
  assert.equal(refused.status, 507);
  assert.equal(refused.body.code, 'storage_full');
  assert.equal(refused.body.retryable, true);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  const retried = await d.json('POST', '/session', { sessionScope: 'thread' });
  assert.equal(retried.status, 200, 'once there is room again the same request succeeds');
  assert.ok((await d.json('GET', '/sessions')).body.sessions.length > before);
});
