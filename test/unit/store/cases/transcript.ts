import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { NewStoredRecord } from '../../../../src/store/repos/transcript.js';
import { HUGE, NOW, session, withSessions, type Current } from './fixtures.js';

const rec = (sessionId: string, recordId: string, kind = 'message', over: Partial<NewStoredRecord> = {}): NewStoredRecord => ({
  sessionId,
  recordId,
  kind,
  promptId: null,
  at: NOW,
  data: { text: recordId, n: 1 },
  ...over,
});

export function transcriptCases(h: Current): void {
  it('transcript: appends number each session from 1, across calls and within one', async () => {
    await withSessions(h(), 's1', 's2');
    const t = h().repos.transcript;
    assert.equal(await t.count('s1'), 0);
    const first = await t.append([rec('s1', 'r1'), rec('s2', 'r2'), rec('s1', 'r3', 'tool', { promptId: 'p1', at: HUGE })]);
    assert.deepEqual(first.map((r) => [r.sessionId, r.seq]), [['s1', 1], ['s2', 1], ['s1', 2]]);
    const second = await t.append([rec('s1', 'r4')]);
    assert.equal(second[0]?.seq, 3);
    assert.deepEqual(await t.append([]), []);
    assert.equal(await t.count('s1'), 3);
    assert.equal(await t.lastSeq('s1'), 3);
    assert.equal(await t.lastSeq('none'), 0);
    const all = await t.all('s1');
    assert.deepEqual(all.map((r) => r.recordId), ['r1', 'r3', 'r4']);
    assert.deepEqual(all[1], { sessionId: 's1', seq: 2, recordId: 'r3', kind: 'tool', promptId: 'p1', at: HUGE, data: { text: 'r3', n: 1 } });
    assert.deepEqual((await t.range('s1', 2, 3)).map((r) => r.seq), [2]);
    assert.deepEqual(await t.seqOf('r4'), { sessionId: 's1', seq: 3 });
    assert.equal(await t.seqOf('missing'), undefined);
    assert.equal(await t.recordIdAt('s1', 2), 'r3');
    assert.equal(await t.recordIdAt('s1', 9), undefined);
    assert.deepEqual((await t.ofKind('s1', 'message', 3)).map((r) => r.seq), [1, 3]);
    assert.deepEqual((await t.ofKind('s1', 'message', 2)).map((r) => r.seq), [1]);
  });

  it('transcript: batches of every size store every record in order (the texts kept per row count and the ones built past them)', async () => {
    await withSessions(h(), 's1');
    const t = h().repos.transcript;
    let n = 0;
    for (const size of [2, 32, 33, 40]) {
      const stored = await t.append(Array.from({ length: size }, () => rec('s1', `b${++n}`)));
      assert.deepEqual(stored.map((r) => r.seq), Array.from({ length: size }, (_, i) => n - size + i + 1));
    }
    assert.deepEqual((await t.all('s1')).map((r) => r.recordId), Array.from({ length: n }, (_, i) => `b${i + 1}`));
  });

  it('transcript: an overflowing record keeps its whole JSON beside the preview', async () => {
    await withSessions(h(), 's1');
    const t = h().repos.transcript;
    const whole = JSON.stringify({ text: 'x'.repeat(10_000) });
    const [stored] = await t.append([rec('s1', 'big', 'message', { overflow: whole, data: { preview: true } })]);
    assert.equal('overflow' in stored!, false);
    assert.equal(await t.overflowOf('big'), whole);
    assert.equal(await t.overflowOf('r-none'), undefined);
  });

  it('transcript: a transaction that fails half-way leaves nothing, and the next append reuses its seqs', async () => {
    await withSessions(h(), 's1');
    const t = h().repos.transcript;
    await t.append([rec('s1', 'dup')]);
    await assert.rejects(t.append([rec('s1', 'fresh', 'message', { overflow: '{"whole":1}' }), rec('s1', 'dup')]));
    assert.equal(await t.count('s1'), 1);
    assert.equal(await t.seqOf('fresh'), undefined);
    assert.equal(await t.overflowOf('fresh'), undefined);
    await assert.rejects(t.append([rec('s1', 'dup')]));
    assert.equal(await t.count('s1'), 1);
    const [next] = await t.append([rec('s1', 'fresh')]);
    assert.equal(next?.seq, 2);
  });

  it('transcript: writes issued without waiting are seen by the reads issued after them', async () => {
    await withSessions(h(), 's1');
    const t = h().repos.transcript;
    const writes = Array.from({ length: 20 }, (_, i) => t.append([rec('s1', `q${i}`)]));
    const [count, all] = await Promise.all([t.count('s1'), t.all('s1')]);
    await Promise.all(writes);
    assert.equal(count, 20);
    assert.deepEqual(all.map((r) => r.recordId), Array.from({ length: 20 }, (_, i) => `q${i}`));
  });

  it('a failing transaction takes nothing of the calls issued beside it, and reads see the writes issued before them', async () => {
    await withSessions(h(), 's1');
    const { transcript, meta, sessions } = h().repos;
    await transcript.append([rec('s1', 'dup')]);
    const failing = transcript.append([rec('s1', 'one'), rec('s1', 'two'), rec('s1', 'dup')]);
    const claimed = meta.claim('beside', 'kept');
    const inserted = sessions.insert(session('s2'));
    const read = sessions.get('s2');
    await assert.rejects(failing);
    assert.equal(await claimed, 'kept');
    await inserted;
    assert.equal((await read)?.id, 's2');
    assert.equal(await meta.claim('beside', 'other'), 'kept');
    assert.equal(await transcript.count('s1'), 1);
  });

  it('transcript: a damaged row comes back unreadable without hiding the others', async () => {
    await withSessions(h(), 's1');
    const t = h().repos.transcript;
    await t.append([rec('s1', 'ok1'), rec('s1', 'bad'), rec('s1', 'ok2')]);
    await h().raw(`UPDATE transcript SET data = '{not json' WHERE record_id = 'bad'`);
    const all = await t.all('s1');
    assert.deepEqual(all.map((r) => r.unreadable ?? false), [false, true, false]);
    assert.deepEqual(all[1]?.data, {});
  });
}
