import assert from 'node:assert/strict';
import { it } from 'node:test';
import { HUGE, NOW, session, type Current } from './fixtures.js';

export function sessionCases(h: Current): void {
  it('sessions: a row comes back whole, JSON columns and big numbers included', async () => {
    const row = session('s1', {
      scope: 'thread',
      createdAt: HUGE,
      displayName: 'Fix the “ünïcode” bug',
      titleSource: 'user',
      prs: [{ number: 7, url: 'https://example.invalid/7', nested: { a: [1, null, true] } }],
      modelId: 'm',
      sourceType: 'gateway',
      sourceId: 'g1',
      worktree: { path: '/w', created: true },
      branch: { name: 'b', base: 'main' },
      currentCwd: '/w/sub',
    });
    await h().repos.sessions.insert(row);
    const back = await h().repos.sessions.get('s1');
    assert.deepEqual(back, row);
    assert.equal(typeof back?.createdAt, 'number');
    assert.equal(await h().repos.sessions.get('nope'), undefined);
  });

  it('sessions: update writes only the patched columns and the time', async () => {
    await h().repos.sessions.insert(session('s1', { displayName: 'keep' }));
    await h().repos.sessions.update('s1', { prs: [1, 2], modelId: 'x', closedAt: NOW + 5, closeReason: 'done' }, NOW + 9);
    const back = await h().repos.sessions.get('s1');
    assert.deepEqual(back, session('s1', { displayName: 'keep', prs: [1, 2], modelId: 'x', closedAt: NOW + 5, closeReason: 'done', updatedAt: NOW + 9 }));
    await h().repos.sessions.update('s1', { displayName: null }, NOW + 10);
    assert.equal((await h().repos.sessions.get('s1'))?.displayName, null);
  });

  it('sessions: listAfter pages in insertion order by position', async () => {
    const ids = ['zeta', 'alpha', 'mid', 'beta', 'omega'];
    for (const id of ids) await h().repos.sessions.insert(session(id));
    const seen: string[] = [];
    let after = 0;
    for (;;) {
      const page = await h().repos.sessions.listAfter(after, 2);
      if (page.length === 0) break;
      assert.ok(page.length <= 2);
      for (const p of page) {
        assert.equal(typeof p.position, 'number');
        assert.ok(p.position > after);
        after = p.position;
        seen.push(p.row.id);
      }
    }
    assert.deepEqual(seen, ids);
  });

  it('sessions: closeAllOpen closes only the open ones and counts them', async () => {
    await h().repos.sessions.insert(session('a'));
    await h().repos.sessions.insert(session('b', { closedAt: NOW, closeReason: 'earlier' }));
    await h().repos.sessions.insert(session('c'));
    assert.equal(await h().repos.sessions.closeAllOpen('shutdown', NOW + 1), 2);
    assert.equal((await h().repos.sessions.get('a'))?.closeReason, 'shutdown');
    assert.equal((await h().repos.sessions.get('b'))?.closeReason, 'earlier');
    assert.equal(await h().repos.sessions.closeAllOpen('again', NOW + 2), 0);
  });
}
