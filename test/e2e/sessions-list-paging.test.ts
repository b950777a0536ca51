import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_SESSION_LIST_PAGE, MAX_SESSION_LIST_PAGE } from '../../src/sessions/limits.js';
import { SqliteSessionRepository } from '../../src/store/repos/sessions.js';
import { startTestDaemon, type TestDaemon, sqliteDb } from '../support/daemon.js';
import { assertHealthy, watchHealth } from '../support/health-watch.js';
import { closedSessionRow } from '../support/history.js';

/**
 * Issue 16 finding 8, scaled down: `GET /sessions` over 50,000 sessions was
 * one 11 MB answer built in a 1.4 s stall. It is paged now (docs/client-api.md
 * §5.11): a bounded default page, `limit` up to a maximum, and a `nextCursor`
 * that continues in the order sessions were stored.
 */

/** Stored sessions: more than a few pages of the largest size. */
const STORED = 6_000;

describe('GET /sessions is paged', () => {
  let d: TestDaemon;
  const ids: string[] = [];
  before(async () => {
    d = await startTestDaemon();
    const repo = new SqliteSessionRepository(sqliteDb(d.daemon));
    const workspaceId = d.daemon.core.workspaces.primary().id;
    // One SQLite transaction: each insert runs its statement before it returns its promise.
    const inserted: Promise<void>[] = [];
    sqliteDb(d.daemon).transaction(() => {
      for (let i = 0; i < STORED; i++) {
        const id = randomUUID();
        ids.push(id);
        inserted.push(repo.insert(closedSessionRow(id, workspaceId, 1_700_000_000_000 + i)));
      }
    })();
    await Promise.all(inserted);
  });
  after(() => d.close());

  /** Every page from the first, at `limit` a page (or the default). */
  async function walk(limit?: number): Promise<{ pages: number; seen: string[]; largest: number }> {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let largest = 0;
    do {
      const params = new URLSearchParams({ ...(limit ? { limit: String(limit) } : {}), ...(cursor ? { cursor } : {}) });
      const r = await d.json('GET', `/sessions?${params}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      largest = Math.max(largest, r.body.sessions.length);
      seen.push(...r.body.sessions.map((s: { sessionId: string }) => s.sessionId));
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor !== undefined);
    return { pages, seen, largest };
  }

  it('answers a bounded first page with a cursor when the client names no limit, as an old client asks', async () => {
    const r = await d.json('GET', '/sessions');
    assert.equal(r.status, 200);
    assert.equal(r.body.sessions.length, DEFAULT_SESSION_LIST_PAGE);
    assert.deepEqual(r.body.sessions.map((s: { sessionId: string }) => s.sessionId), ids.slice(0, DEFAULT_SESSION_LIST_PAGE), 'oldest first, as before');
    assert.equal(typeof r.body.nextCursor, 'string');
    const caps = await d.json('GET', '/capabilities');
    assert.equal(caps.body.limits.maxSessionListPage, MAX_SESSION_LIST_PAGE);
    assert.equal(caps.body.limits.defaultSessionListPage, DEFAULT_SESSION_LIST_PAGE);
  });

  it('walks every stored session exactly once, in stored order, whatever the page size, while /health stays prompt', async () => {
    const health = await watchHealth(d.url);
    const walks = await Promise.all([walk(), walk(MAX_SESSION_LIST_PAGE), walk(7), walk(MAX_SESSION_LIST_PAGE), walk()]);
    assertHealthy('paging 6,000 sessions five times at once', await health.stop());
    for (const w of walks) assert.deepEqual(w.seen, ids, 'all, once, in order');
    assert.equal(walks[0]!.largest, DEFAULT_SESSION_LIST_PAGE);
    assert.equal(walks[1]!.largest, MAX_SESSION_LIST_PAGE);
    assert.equal(walks[1]!.pages, Math.ceil(STORED / MAX_SESSION_LIST_PAGE));
    assert.equal(walks[2]!.largest, 7);
  });

  it('shows a session created while a client pages on a later page, never skipping or repeating one', async () => {
    const first = await d.json('GET', '/sessions?limit=1000');
    const created = await d.json('POST', '/session', { sessionScope: 'thread' });
    assert.equal(created.status, 200);
    const rest = await walkFrom(first.body.nextCursor);
    const all = [...first.body.sessions.map((s: { sessionId: string }) => s.sessionId), ...rest];
    assert.deepEqual(all, [...ids, created.body.sessionId]);
  });

  async function walkFrom(cursor: string | undefined): Promise<string[]> {
    const seen: string[] = [];
    while (cursor !== undefined) {
      const r = await d.json('GET', `/sessions?limit=1000&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...r.body.sessions.map((s: { sessionId: string }) => s.sessionId));
      cursor = r.body.nextCursor;
    }
    return seen;
  }

  it('refuses a limit outside 1..1000 and a cursor it did not hand out with 400 and a code', async () => {
    for (const limit of ['0', '1001', '-1', '1.5', 'ten', '', '99999999999']) {
      const r = await d.json('GET', `/sessions?limit=${encodeURIComponent(limit)}`);
      assert.equal(r.status, 400, limit);
      assert.equal(r.body.code, 'invalid_session_list_limit', limit);
    }
    for (const cursor of ['x', 's1.', 's1.MA', 's1.LTE', `s1.${Buffer.from('1e3').toString('base64url')}`, 'MTA']) {
      const r = await d.json('GET', `/sessions?cursor=${encodeURIComponent(cursor)}`);
      assert.equal(r.status, 400, cursor);
      assert.equal(r.body.code, 'invalid_session_list_cursor', cursor);
    }
  });
});
