import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { StoredMessage } from '../../../../src/store/repos/module-inbox.js';
import { NOW, withSessions, type Current } from './fixtures.js';

const msg = (id: string, to: string, over: Partial<StoredMessage> = {}): StoredMessage => ({
  id,
  toSessionId: to,
  fromSessionId: 'sender',
  fromTab: 3,
  fromLabel: 'tab 3',
  kind: 'info',
  text: `text of ${id}`,
  hop: 0,
  sentAt: NOW,
  ...over,
});

/** Module tabs, module tokens and inboxes. */
export function moduleCases(h: Current): void {
  it('module tabs: numbers are per workspace, kept, and never reused', async () => {
    await withSessions(h(), 'a', 'b', 'c');
    const t = h().repos.moduleTabs;
    assert.equal(await t.find('a'), undefined);
    assert.equal(await t.assign('a', 'w1', NOW), 1);
    assert.equal(await t.assign('a', 'w1', NOW), 1);
    assert.equal(await t.assign('b', 'w1', NOW), 2);
    assert.equal(await t.assign('c', 'w2', NOW), 1);
    assert.deepEqual(await t.find('b'), { tab: 2, workspaceId: 'w1' });
  });

  it("module tabs: a deleted session's number is not given to the next one", async () => {
    await withSessions(h(), 'a', 'b', 'c');
    const t = h().repos.moduleTabs;
    assert.equal(await t.assign('a', 'w1', NOW), 1);
    assert.equal(await t.assign('b', 'w1', NOW), 2);
    // Its tab row goes with it (ON DELETE CASCADE): the highest number of the workspace is gone.
    await h().raw("DELETE FROM sessions WHERE id = 'b'");
    assert.equal(await t.find('b'), undefined);
    assert.equal(await t.assign('c', 'w1', NOW), 3);
  });

  it('module tabs: two connections assigning at once get distinct numbers', async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `s${i}`);
    await withSessions(h(), ...ids);
    const other = (await h().second()).moduleTabs;
    const tabs = await Promise.all(ids.map((id, i) => (i % 2 ? other : h().repos.moduleTabs).assign(id, 'w1', NOW)));
    assert.deepEqual([...tabs].sort((x, y) => x - y), [1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('module tokens: added, listed by session id, replaced as a whole', async () => {
    await withSessions(h(), 'b', 'a', 'c');
    const t = h().repos.moduleTabs;
    assert.equal(await t.hasToken('a'), false);
    await t.addToken('h1', 'b', NOW);
    await t.addToken('h1', 'a', NOW);
    assert.deepEqual(await t.sessionsForToken('h1'), ['a', 'b']);
    assert.equal(await t.hasToken('a'), true);
    await t.replaceTokens('h2', ['a', 'c'], NOW);
    assert.deepEqual(await t.sessionsForToken('h1'), ['b']);
    assert.deepEqual(await t.sessionsForToken('h2'), ['a', 'c']);
    assert.deepEqual(await t.sessionsForToken('none'), []);
  });

  it('module inbox: oldest first, counted, taken one by one or all at once', async () => {
    await withSessions(h(), 'r1', 'r2');
    const box = h().repos.moduleInbox;
    await box.add(msg('m2', 'r1', { kind: 'question', hop: 2, text: 'ünïcode ✓' }));
    await box.add(msg('m1', 'r1'));
    await box.add(msg('m3', 'r1'));
    await box.add(msg('x', 'r2'));
    assert.equal(await box.count('r1'), 3);
    assert.deepEqual(await box.oldest('r1'), msg('m2', 'r1', { kind: 'question', hop: 2, text: 'ünïcode ✓' }));
    assert.deepEqual((await box.list('r1')).map((m) => m.id), ['m2', 'm1', 'm3']);
    assert.equal(await box.take('m1', 'r1'), true);
    assert.equal(await box.take('m1', 'r1'), false);
    assert.deepEqual((await box.takeAll('r1', true)).map((m) => m.id), ['m2', 'm3']);
    assert.equal(await box.count('r1'), 0);
    assert.equal(await box.oldest('r1'), undefined);
    assert.deepEqual(await box.takeAll('r1', true), []);
    assert.equal(await box.count('r2'), 1);
  });
}
