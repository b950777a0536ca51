import assert from 'node:assert/strict';
import { it } from 'node:test';
import { HUGE, NOW, type Current } from './fixtures.js';

const call = (id: string, sentAt = NOW) => ({ id, workspaceId: 'w1', sessionId: 's1', tool: 'read', args: '{"path":"a"}', tokenId: 'tok', sentAt });

/** Gateway calls, permission grants and file checkpoints. */
export function effectCases(h: Current): void {
  it('gateway calls: sent, resent, answered once; a late answer to an abandoned call is kept', async () => {
    const g = h().repos.gatewayCalls;
    await g.insert(call('c1'));
    await g.resent('c1');
    await g.resent('c1');
    assert.deepEqual(await g.find('c1'), { ...call('c1'), state: 'sent', result: null, sends: 3, settledAt: null });
    assert.equal(await g.answer('c1', 'r1', NOW + 1), true);
    assert.equal(await g.answer('c1', 'r2', NOW + 2), false);
    await g.resent('c1');
    assert.deepEqual(await g.find('c1'), { ...call('c1'), state: 'answered', result: 'r1', sends: 3, settledAt: NOW + 1 });

    await g.insert(call('c2'));
    assert.equal(await g.abandon('c2', NOW + 3), true);
    assert.equal(await g.abandon('c2', NOW + 4), false);
    assert.equal(await g.answer('c2', 'late', NOW + 5), false);
    assert.equal(await g.answer('c2', 'later', NOW + 6), false);
    assert.deepEqual(await g.find('c2'), { ...call('c2'), state: 'abandoned', result: 'late', sends: 1, settledAt: NOW + 3 });
    assert.equal(await g.find('none'), undefined);
  });

  it('gateway calls: writeRows answers each call as answer would, in one write', async () => {
    const g = h().repos.gatewayCalls;
    for (const id of ['a', 'b', 'gone']) await g.insert(call(id));
    await g.abandon('gone', NOW + 1);
    await g.writeRows([], [
      { id: 'a', result: 'ra', at: NOW + 2 },
      { id: 'gone', result: 'late', at: NOW + 2 },
      { id: 'b', result: 'rb', at: NOW + 3 },
    ]);
    assert.deepEqual(await g.find('a'), { ...call('a'), state: 'answered', result: 'ra', sends: 1, settledAt: NOW + 2 });
    assert.deepEqual(await g.find('b'), { ...call('b'), state: 'answered', result: 'rb', sends: 1, settledAt: NOW + 3 });
    assert.deepEqual(await g.find('gone'), { ...call('gone'), state: 'abandoned', result: 'late', sends: 1, settledAt: NOW + 1 });
    await g.writeRows([], []);
  });

  it('gateway calls: writeRows writes each sent row as insert would, in one write', async () => {
    const g = h().repos.gatewayCalls;
    await g.writeRows([call('a'), call('b', NOW + 1)], []);
    assert.deepEqual(await g.find('a'), { ...call('a'), state: 'sent', result: null, sends: 1, settledAt: null });
    assert.deepEqual(await g.find('b'), { ...call('b', NOW + 1), state: 'sent', result: null, sends: 1, settledAt: null });
    await assert.rejects(g.writeRows([call('c'), call('a')], []), 'an id that exists fails the batch');
    assert.equal(await g.find('c'), undefined, 'and nothing of it is written');
  });

  it('gateway calls: writeRows writes the sent rows first, and the answers with them in the same write', async () => {
    const g = h().repos.gatewayCalls;
    await g.insert(call('old'));
    await g.writeRows([call('new')], [
      { id: 'new', result: 'r-new', at: NOW + 2 },
      { id: 'old', result: 'r-old', at: NOW + 2 },
    ]);
    assert.deepEqual(await g.find('new'), { ...call('new'), state: 'answered', result: 'r-new', sends: 1, settledAt: NOW + 2 }, 'an answer closes a sent row of its own batch');
    assert.equal((await g.find('old'))?.state, 'answered');

    await g.insert(call('waiting'));
    await assert.rejects(g.writeRows([call('new')], [{ id: 'waiting', result: 'r', at: NOW + 3 }]));
    assert.equal((await g.find('waiting'))?.state, 'sent', 'one write: a failing sent row takes the answers of its batch with it');
  });

  it('gateway calls: abandonAllSent and pruneSettledBefore count what they touch', async () => {
    const g = h().repos.gatewayCalls;
    for (const id of ['a', 'b', 'c']) await g.insert(call(id));
    await g.answer('a', 'r', NOW + 1);
    assert.equal(await g.abandonAllSent(HUGE), 2);
    assert.equal((await g.find('b'))?.settledAt, HUGE);
    assert.equal(await g.pruneSettledBefore(NOW + 1), 0);
    assert.equal(await g.pruneSettledBefore(NOW + 2), 1);
    assert.equal(await g.find('a'), undefined);
    assert.equal(await g.pruneSettledBefore(HUGE), 0);
  });

  it('permission grants: a later choice replaces the earlier; only the grants that apply come back', async () => {
    const p = h().repos.grants;
    const g = (scope: string, scopeId: string, key: string, choice = 'allow') => ({ scope, scopeId, key, choice, label: `${key} label`, createdAt: NOW });
    await p.put(g('session', 's1', 'edit'));
    await p.put(g('session', 's2', 'edit'));
    await p.put(g('workspace', 'w1', 'shell'));
    await p.put(g('workspace', 'w2', 'shell'));
    await p.put(g('user', '', 'read'));
    await p.put({ ...g('session', 's1', 'edit', 'reject'), label: 'changed', createdAt: HUGE });
    const byKey = (rows: { scope: string; scopeId: string; key: string }[]) => rows.map((r) => `${r.scope}/${r.scopeId}/${r.key}`).sort();
    const applying = await p.applying('s1', 'w1');
    assert.deepEqual(byKey(applying), ['session/s1/edit', 'user//read', 'workspace/w1/shell']);
    assert.deepEqual(applying.find((r) => r.scope === 'session'), { ...g('session', 's1', 'edit', 'reject'), label: 'changed', createdAt: HUGE });
    assert.deepEqual(byKey(await p.applying('s3', 'w3')), ['user//read']);
  });

  it('checkpoints: blobs round-trip byte for byte, once per session and hash', async () => {
    const c = h().repos.checkpoints;
    const bytes = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7) % 256));
    await c.putBlob('s1', 'h1', bytes);
    await c.putBlob('s1', 'h1', Buffer.from('ignored'));
    await c.putBlob('s1', 'h2', Buffer.alloc(0));
    await c.putBlob('s2', 'h1', Buffer.from('other session'));
    const back = await c.blob('s1', 'h1');
    assert.ok(Buffer.isBuffer(back));
    assert.deepEqual(back, bytes);
    assert.deepEqual(await c.blob('s1', 'h2'), Buffer.alloc(0));
    assert.equal(await c.blob('s1', 'none'), undefined);
    assert.equal(await c.blobBytes('s1'), 512);
    assert.equal(await c.blobBytes('none'), 0);
  });

  it('checkpoints: effects are numbered, settled, dropped, undone and evicted as SQLite does', async () => {
    const c = h().repos.checkpoints;
    const effect = (callId: string, prior: 'file' | 'absent', sha: string | null) =>
      ({ sessionId: 's1', promptId: 'p1', callId, path: `src/${callId}.ts`, prior, priorSha256: sha, at: NOW });
    await c.putBlob('s1', 'ha', Buffer.from('a'));
    await c.putBlob('s1', 'hb', Buffer.from('bb'));
    const a = await c.addEffect(effect('a', 'file', 'ha'));
    const b = await c.addEffect(effect('b', 'file', 'hb'));
    const gone = await c.addEffect(effect('gone', 'absent', null));
    assert.equal(typeof a, 'number');
    assert.deepEqual([b - a, gone - b], [1, 1]);
    await c.settleEffect(a, 'file', 'after-a');
    await c.dropEffect(gone);
    await c.markUndone([b], 'rewind-1');
    const rows = await c.effects('s1');
    assert.deepEqual(rows, [
      { id: a, ...effect('a', 'file', 'ha'), after: 'file', afterSha256: 'after-a', undoneBy: null },
      { id: b, ...effect('b', 'file', 'hb'), after: 'pending', afterSha256: null, undoneBy: 'rewind-1' },
    ]);
    // The undone effect's content goes first, then the oldest; each eviction drops the blob nobody needs.
    assert.equal(await c.evictOldest('s1'), true);
    assert.equal((await c.effects('s1')).find((e) => e.id === b)?.prior, 'evicted');
    assert.equal(await c.blob('s1', 'hb'), undefined);
    assert.equal(await c.blobBytes('s1'), 1);
    assert.equal(await c.evictOldest('s1'), true);
    assert.equal(await c.blobBytes('s1'), 0);
    assert.equal(await c.evictOldest('s1'), false);
    assert.deepEqual(await c.effects('other'), []);
  });

  it('checkpoints: markUndone is all or nothing', async () => {
    const c = h().repos.checkpoints;
    const a = await c.addEffect({ sessionId: 's1', promptId: null, callId: 'a', path: 'a', prior: 'absent', priorSha256: null, at: NOW });
    await c.markUndone([a], 'r1');
    await c.markUndone([], 'r2');
    assert.equal((await c.effects('s1'))[0]?.undoneBy, 'r1');
  });
}
