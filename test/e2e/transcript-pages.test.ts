import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { TestDaemon } from '../support/daemon.js';
import { recordIdOf, runTurn, storeGeneratedSession } from '../support/history.js';
import { startStack, type Stack } from '../support/stack.js';
import { sqliteDb } from '../support/daemon.js';

/**
 * GET /session/{id}/transcript (spec §10.1) against a transcript of more than
 * 1,000 records: 200 generated turns (1,200 records) written through the
 * repositories, then real turns through the scripted model on top, so page
 * boundaries fall both inside generated history and inside real turns.
 */
describe('transcript pages over more than 1,000 records', () => {
  let stack: Stack;
  let d: TestDaemon;
  let sessionId: string;
  /** Record ids in storage order: the truth every mode is compared with. */
  let ids: string[];

  const page = (q: string, sid = sessionId) => d.json('GET', `/session/${sid}/transcript${q}`);
  const storedIds = (sid: string) =>
    (sqliteDb(d.daemon).prepare('SELECT record_id FROM transcript WHERE session_id = ? ORDER BY seq').all(sid) as { record_id: string }[]).map(
      (r) => r.record_id,
    );
  /** The distinct record ids of a page's events, in order (a record may yield several events). */
  const pageIds = (events: any[]) => events.map(recordIdOf).filter((id, i, all) => id !== all[i - 1]);

  async function walk(first: string, sid = sessionId): Promise<{ pages: any[]; ids: string[] }> {
    const pages: any[] = [];
    // A cursor keeps its position and snapshot; the page size is asked again each time (as the SDK does).
    const limit = /limit=(\d+)/.exec(first)?.[1];
    let res = await page(first, sid);
    for (;;) {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      pages.push(res.body);
      if (!res.body.hasMore) break;
      assert.equal(typeof res.body.nextCursor, 'string');
      res = await page(`?cursor=${encodeURIComponent(res.body.nextCursor)}${limit ? `&limit=${limit}` : ''}`, sid);
    }
    return { pages, ids: pages.flatMap((p) => pageIds(p.events)) };
  }

  before(async () => {
    stack = await startStack();
    d = stack.daemon;
    sessionId = await storeGeneratedSession(d, 200);
    // Real turns on top of the generated history: the session is brought back and prompted twice.
    const loaded = await d.json('POST', `/session/${sessionId}/load`, { historyPageSize: 10 });
    assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
    stack.model.enqueue({ kind: 'reply', text: 'first real answer' }, { kind: 'reply', text: 'second real answer' });
    await runTurn(d, sessionId, 'first real prompt', loaded.body.clientId);
    await runTurn(d, sessionId, 'second real prompt', loaded.body.clientId);
    ids = storedIds(sessionId);
    assert.ok(ids.length > 1200 + 4, `expected generated and real records, got ${ids.length}`);
  });

  after(async () => {
    await stack?.close();
  });

  test('a first page holds the oldest 100 records by default, with startTime, lastUpdated and Cache-Control: no-store', async () => {
    const res = await page('');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.body.v, 1);
    assert.equal(res.body.sessionId, sessionId);
    assert.deepEqual(pageIds(res.body.events), ids.slice(0, 100));
    assert.equal(res.body.hasMore, true);
    assert.ok(Date.parse(res.body.startTime) <= Date.parse(res.body.lastUpdated));
    // Flat, id-less session_update frames, as qwen sends them (spec §10.1).
    const first = res.body.events[0];
    assert.deepEqual(Object.keys(first).sort(), ['data', 'type', 'v']);
    assert.equal(first.type, 'session_update');
    assert.equal(first.data.sessionUpdate, 'user_message_chunk');
    assert.deepEqual(first.data.content, { type: 'text', text: 'generated prompt 0' });
    assert.equal(first.data._meta['qwen.session.recordId'], ids[0]);
    assert.equal(first.data.sessionId, undefined);
  });

  test('cursors walk forward through every record exactly once, across a boundary inside the real turns', async () => {
    // 401 puts the third boundary at record 1203, inside the second real turn.
    const { pages, ids: walked } = await walk('?limit=401');
    assert.equal(pages.length, Math.ceil(ids.length / 401));
    assert.deepEqual(walked, ids);
    const last = pages.at(-1);
    assert.equal(last.nextCursor, undefined);
    const texts = pages.flatMap((p) => p.events).map((e: any) => e.data?.content?.text);
    assert.ok(texts.includes('first real prompt') && texts.includes('second real answer'));
    // The page that holds record 1203 starts inside a real turn: its first event is not that turn's prompt.
    const boundary = pages[3].events[0];
    assert.equal(recordIdOf(boundary), ids[1203]);
  });

  test('limit 1 and limit 500 cut pages of exactly that many records', async () => {
    const one = await page('?limit=1');
    assert.deepEqual(pageIds(one.body.events), ids.slice(0, 1));
    const next = await page(`?limit=1&cursor=${encodeURIComponent(one.body.nextCursor)}`);
    assert.deepEqual(pageIds(next.body.events), ids.slice(1, 2));
    const big = await page('?limit=500');
    assert.deepEqual(pageIds(big.body.events), ids.slice(0, 500));
  });

  test('direction=backward starts at the newest records and its cursor walks back to the first', async () => {
    const { pages } = await walk('?direction=backward&limit=300');
    assert.deepEqual(pageIds(pages[0].events), ids.slice(-300));
    const walkedBack = pages.reverse().flatMap((p) => pageIds(p.events));
    assert.deepEqual(walkedBack, ids);
  });

  test('beforeRecordId answers the records just before the anchor and continues backward', async () => {
    const anchor = ids[700]!;
    const res = await page(`?beforeRecordId=${anchor}&limit=100`);
    assert.equal(res.status, 200);
    assert.deepEqual(pageIds(res.body.events), ids.slice(600, 700));
    assert.equal(res.body.targetRecordId, anchor);
    assert.equal(res.body.hasOlder, true);
    const older = await page(`?cursor=${encodeURIComponent(res.body.nextCursor)}&limit=100`);
    assert.deepEqual(pageIds(older.body.events), ids.slice(500, 600));
  });

  test('atRecordId with a turn-index snapshot answers the forward page that starts at that turn', async () => {
    const index = await d.json('GET', `/session/${sessionId}/turn-index?start=150&limit=5`);
    assert.equal(index.status, 200);
    assert.equal(index.body.totalTurns, 202);
    assert.equal(index.body.turns[0].ordinal, 150);
    assert.equal(index.body.turns[0].label, 'generated prompt 150');
    const turnId = index.body.turns[0].turnId;
    const res = await page(`?atRecordId=${turnId}&snapshot=${encodeURIComponent(index.body.snapshot)}&limit=12`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const at = ids.indexOf(turnId);
    assert.equal(at, 900);
    assert.deepEqual(pageIds(res.body.events), ids.slice(900, 912));
    assert.equal(res.body.targetRecordId, turnId);
    assert.equal(res.body.hasOlder, true);
    const onward = await page(`?cursor=${encodeURIComponent(res.body.nextCursor)}&limit=12`);
    assert.deepEqual(pageIds(onward.body.events), ids.slice(912, 924));
  });

  test('a cursor and a snapshot are frozen: records appended later are not seen through them', async () => {
    const sid = await storeGeneratedSession(d, 170); // 1,020 records
    const before = storedIds(sid);
    const first = await page('?limit=500', sid);
    const index = await d.json('GET', `/session/${sid}/turn-index?limit=1`);
    const loaded = await d.json('POST', `/session/${sid}/load`, {});
    stack.model.enqueue({ kind: 'reply', text: 'appended later' });
    await runTurn(d, sid, 'a prompt after the snapshot', loaded.body.clientId);
    const after = storedIds(sid);
    assert.ok(after.length > before.length);

    const rest = await page(`?cursor=${encodeURIComponent(first.body.nextCursor)}&limit=500`, sid);
    const tail = await page(`?cursor=${encodeURIComponent(rest.body.nextCursor)}&limit=500`, sid);
    assert.equal(tail.body.hasMore, false);
    assert.deepEqual([...pageIds(first.body.events), ...pageIds(rest.body.events), ...pageIds(tail.body.events)], before);

    const newest = after.at(-1)!;
    const pinned = await page(`?beforeRecordId=${newest}&snapshot=${encodeURIComponent(index.body.snapshot)}`, sid);
    assert.equal(pinned.status, 400);
    assert.equal(pinned.body.code, 'invalid_turn_anchor');
    const unpinned = await page(`?beforeRecordId=${newest}&limit=3`, sid);
    assert.equal(unpinned.status, 200);
    assert.deepEqual(pageIds(unpinned.body.events), after.slice(-4, -1));
  });

  test('a cursor or snapshot whose records were rewritten in storage is refused with 409 transcript_snapshot_unavailable', async () => {
    const sid = await storeGeneratedSession(d, 170);
    const first = await page('?limit=500', sid);
    const index = await d.json('GET', `/session/${sid}/turn-index?limit=1`);
    assert.equal((await page(`?cursor=${encodeURIComponent(first.body.nextCursor)}`, sid)).status, 200);
    // Storage moves under the snapshot: the newest record it covers is replaced by another one.
    sqliteDb(d.daemon)
      .prepare('UPDATE transcript SET record_id = ? WHERE session_id = ? AND seq = (SELECT MAX(seq) FROM transcript WHERE session_id = ?)')
      .run(randomUUID(), sid, sid);
    const stale = await page(`?cursor=${encodeURIComponent(first.body.nextCursor)}`, sid);
    assert.equal(stale.status, 409);
    assert.equal(stale.body.code, 'transcript_snapshot_unavailable');
    assert.equal(stale.body.snapshotSize, 1020);
    const turn = index.body.turns[0].turnId;
    const anchored = await page(`?atRecordId=${turn}&snapshot=${encodeURIComponent(index.body.snapshot)}`, sid);
    assert.equal(anchored.status, 409);
    assert.equal(anchored.body.code, 'transcript_snapshot_unavailable');
    // A fresh first page starts over on what storage holds now.
    assert.equal((await page('?limit=5', sid)).status, 200);
  });

  test('a page past the byte budget is refused with 413 transcript_page_too_large; a smaller limit fits', async () => {
    const sid = await storeGeneratedSession(d, 0);
    const big = 'x'.repeat(3 * 1024 * 1024);
    const db = sqliteDb(d.daemon);
    const insert = db.prepare('INSERT INTO transcript (session_id, seq, record_id, kind, prompt_id, at, data) VALUES (?, ?, ?, ?, NULL, ?, ?)');
    for (let seq = 1; seq <= 3; seq++) insert.run(sid, seq, randomUUID(), 'agent_message', Date.now(), JSON.stringify({ text: big }));
    const tooBig = await page('?limit=3', sid);
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.body.code, 'transcript_page_too_large');
    assert.ok(tooBig.body.pageBytes > tooBig.body.maxBytes);
    assert.equal(tooBig.body.maxBytes, 8 * 1024 * 1024);
    const fits = await page('?limit=2', sid);
    assert.equal(fits.status, 200);
    assert.equal(fits.body.events.length, 2);
  });

  test('every malformed limit is 400 invalid_transcript_limit with maxLimit', async () => {
    for (const limit of ['0', '501', 'abc', '-1', '1.5', '', '99999999']) {
      const res = await page(`?limit=${limit}`);
      assert.equal(res.status, 400, `limit=${limit}`);
      assert.equal(res.body.code, 'invalid_transcript_limit', `limit=${limit}`);
      assert.equal(res.body.maxLimit, 500);
    }
  });

  test('a garbage, empty, tampered or foreign cursor is 400 invalid_transcript_cursor', async () => {
    const first = await page('?limit=2');
    const cursor: string = first.body.nextCursor;
    const [payload, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...decoded, p: 1 })).toString('base64url')}.${mac}`;
    const other = await storeGeneratedSession(d, 2);
    const cases = ['garbage', '', forged, `${payload}.${mac.slice(0, -2)}AA`, 'a.b.c'];
    for (const c of cases) {
      const res = await page(`?cursor=${encodeURIComponent(c)}`);
      assert.equal(res.status, 400, `cursor ${c}`);
      assert.equal(res.body.code, 'invalid_transcript_cursor', `cursor ${c}`);
    }
    const foreign = await page(`?cursor=${encodeURIComponent(cursor)}`, other);
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.code, 'invalid_transcript_cursor');
    const sideways = await page('?direction=sideways');
    assert.equal(sideways.status, 400);
    assert.equal(sideways.body.code, 'invalid_transcript_cursor');
  });

  test('forbidden combinations of cursor, direction and anchors are 400 invalid_transcript_cursor', async () => {
    const first = await page('?limit=2');
    const cursor = encodeURIComponent(first.body.nextCursor);
    const index = await d.json('GET', `/session/${sessionId}/turn-index?limit=1`);
    const snap = encodeURIComponent(index.body.snapshot);
    const turn = index.body.turns[0].turnId;
    const combos = [
      `?direction=backward&cursor=${cursor}`,
      `?direction=backward&beforeRecordId=${ids[5]}`,
      `?direction=backward&atRecordId=${turn}&snapshot=${snap}`,
      `?direction=backward&snapshot=${snap}`,
      `?cursor=${cursor}&beforeRecordId=${ids[5]}`,
      `?cursor=${cursor}&atRecordId=${turn}`,
      `?cursor=${cursor}&snapshot=${snap}`,
      `?atRecordId=${turn}`,
      `?atRecordId=${turn}&beforeRecordId=${ids[5]}&snapshot=${snap}`,
      `?snapshot=${snap}`,
    ];
    for (const q of combos) {
      const res = await page(q);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.code, 'invalid_transcript_cursor', q);
      assert.equal(res.body.error, 'Invalid transcript cursor and anchor combination', q);
    }
  });

  test('unknown, foreign, over-long or non-turn anchors are 400 invalid_turn_anchor', async () => {
    const index = await d.json('GET', `/session/${sessionId}/turn-index?limit=1`);
    const snap = encodeURIComponent(index.body.snapshot);
    const other = await storeGeneratedSession(d, 1);
    const otherRecord = storedIds(other)[0];
    const toolCallRecord = ids[3]; // the generated turn's tool_call: a record, but not a turn
    const cases = [
      `?beforeRecordId=${randomUUID()}`,
      `?beforeRecordId=${otherRecord}`,
      `?beforeRecordId=${'r'.repeat(201)}`,
      `?atRecordId=${toolCallRecord}&snapshot=${snap}`,
      `?atRecordId=${otherRecord}&snapshot=${snap}`,
    ];
    for (const q of cases) {
      const res = await page(q);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.code, 'invalid_turn_anchor', q);
    }
    const badSnapshot = await page(`?atRecordId=${index.body.turns[0].turnId}&snapshot=nonsense`);
    assert.equal(badSnapshot.status, 400);
    assert.equal(badSnapshot.body.code, 'invalid_transcript_cursor');
  });

  test('compactedReplayMode full and summary are accepted, anything else is 400 invalid_compacted_replay_mode', async () => {
    assert.equal((await page('?compactedReplayMode=summary&limit=3')).status, 200);
    assert.equal((await page('?compactedReplayMode=full&limit=3')).status, 200);
    const bad = await page('?compactedReplayMode=verbose');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_compacted_replay_mode');
  });

  test('an unknown or malformed session id is 404 session_not_found; a closed session still pages', async () => {
    for (const sid of [randomUUID(), 'not-a-uuid']) {
      const res = await page('', sid);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'session_not_found');
    }
    const closedId = await storeGeneratedSession(d, 3);
    const res = await page('?direction=backward&limit=6', closedId);
    assert.equal(res.status, 200);
    assert.equal(res.body.events.at(-1).type, 'turn_complete');
  });
});
