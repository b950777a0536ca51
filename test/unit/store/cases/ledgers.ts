import assert from 'node:assert/strict';
import { it } from 'node:test';
import { HUGE, NOW, withSessions, type Current } from './fixtures.js';

/** Prompts, receipts, tokens and meta: the ledgers a restart reads back. */
export function ledgerCases(h: Current): void {
  it('prompts: admitted, started, settled once, listed by queue time', async () => {
    await withSessions(h(), 's1', 's2');
    const p = h().repos.prompts;
    const content = [{ type: 'text', text: 'héllo' }, { type: 'image', data: 'AAEC', mime: 'image/png' }];
    await p.admit({ id: 'p2', sessionId: 's1', content, originatorClientId: 'c1', queuedAt: NOW + 2 });
    await p.admit({ id: 'p1', sessionId: 's1', content: [], originatorClientId: null, queuedAt: NOW + 1 });
    await p.admit({ id: 'p3', sessionId: 's2', content: [], originatorClientId: null, queuedAt: HUGE });
    await p.started('p2', NOW + 3);
    assert.deepEqual((await p.unsettled()).map((r) => r.id), ['p1', 'p2', 'p3']);
    assert.deepEqual((await p.unsettled('s1')).map((r) => r.id), ['p1', 'p2']);
    await p.settle('p2', NOW + 4, 'completed', 'end_turn', null);
    await p.settle('p2', NOW + 5, 'failed', null, 'late');
    const [settled] = await p.settled('s1');
    assert.deepEqual(settled, {
      id: 'p2', sessionId: 's1', content, originatorClientId: 'c1', queuedAt: NOW + 2, startedAt: NOW + 3,
      settledAt: NOW + 4, terminal: 'completed', stopReason: 'end_turn', errorCode: null,
    });
    assert.deepEqual((await p.unsettled('s1')).map((r) => r.id), ['p1']);
    assert.equal((await p.unsettled()).find((r) => r.id === 'p3')?.queuedAt, HUGE);
    assert.deepEqual(await p.settled('s2'), []);
  });

  it('prompts: a row admitted with its start mark is stored as started, and a refused one is not', async () => {
    await withSessions(h(), 's1');
    const p = h().repos.prompts;
    await p.admit({ id: 'at-once', sessionId: 's1', content: [], originatorClientId: null, queuedAt: NOW, startedAt: NOW });
    await p.admit({ id: 'queued', sessionId: 's1', content: [], originatorClientId: null, queuedAt: NOW + 1 });
    assert.deepEqual((await p.unsettled('s1')).map((r) => [r.id, r.startedAt]), [['at-once', NOW], ['queued', null]]);
    // Refused after its row was stored (its session went away meanwhile): it never started.
    await p.refused('at-once', NOW + 2, 'removed');
    await p.refused('at-once', NOW + 3, 'late');
    const [refused] = await p.settled('s1');
    assert.deepEqual([refused?.startedAt, refused?.settledAt, refused?.terminal], [null, NOW + 2, 'removed']);
  });

  it('receipts: begin claims once, complete stores the outcome as JSON once, prune drops old completed ones', async () => {
    const r = h().repos.receipts;
    const start = { namespace: 'n', callId: 'c1', toolName: 'write', argsDigest: 'd1', startedAt: NOW };
    assert.equal(await r.begin(start), true);
    assert.equal(await r.begin({ ...start, argsDigest: 'other' }), false);
    assert.deepEqual(await r.find('n', 'c1'), { ...start, status: 'executing', outcome: null, finishedAt: null });
    assert.equal(await r.find('other-namespace', 'c1'), undefined);
    const outcome = { ok: true, result: { text: 'ünï', list: [1, 2.5, null], flag: false } };
    await r.complete('n', 'c1', outcome, NOW + 10);
    await r.complete('n', 'c1', { ok: false }, NOW + 20);
    assert.deepEqual(await r.find('n', 'c1'), { ...start, status: 'completed', outcome, finishedAt: NOW + 10 });
    await r.begin({ ...start, callId: 'uncertain' });
    assert.equal(await r.pruneCompletedBefore(NOW + 10), 0);
    assert.equal(await r.pruneCompletedBefore(NOW + 11), 1);
    assert.equal(await r.find('n', 'c1'), undefined);
    assert.equal((await r.find('n', 'uncertain'))?.status, 'executing');
  });

  it('receipts: those of one namespace begun since a time, oldest first', async () => {
    const r = h().repos.receipts;
    const at = (callId: string, namespace: string, startedAt: number) => r.begin({ namespace, callId, toolName: 't', argsDigest: 'd', startedAt });
    await at('late', 'since', NOW + 5);
    await at('early', 'since', NOW + 1);
    await at('before', 'since', NOW - 1);
    await at('elsewhere', 'other', NOW + 2);
    assert.deepEqual((await r.startedSince('since', NOW)).map((x) => [x.callId, x.status]), [['early', 'executing'], ['late', 'executing']]);
  });

  it('receipts: of two connections racing to begin the same call, exactly one wins', async () => {
    const one = h().repos.receipts;
    const two = (await h().second()).receipts;
    for (let i = 0; i < 25; i++) {
      const start = { namespace: 'race', callId: `c${i}`, toolName: 't', argsDigest: 'd', startedAt: NOW };
      const won = await Promise.all([one.begin(start), two.begin(start), one.begin(start), two.begin(start)]);
      assert.equal(won.filter(Boolean).length, 1, `call ${i}: ${won.join(',')}`);
    }
  });

  it('tokens: an active token is found by its hash', async () => {
    const t = h().repos.tokens;
    const token = { id: 't1', hash: 'h1', scope: 'app' as const, workspaceId: null, appName: 'notes', maxPolicy: 'write' };
    await t.insert(token, NOW);
    await t.insert({ id: 't2', hash: 'h2', scope: 'channel', workspaceId: 'w1', appName: null, maxPolicy: null }, NOW);
    assert.deepEqual(await t.findActive('h1'), token);
    assert.equal(await t.findActive('nope'), undefined);
    await assert.rejects(t.insert({ ...token, id: 't3' }, NOW));
    await h().raw(`UPDATE tokens SET revoked_at = ${NOW} WHERE id = 't1'`);
    assert.equal(await t.findActive('h1'), undefined);
    assert.equal((await t.findActive('h2'))?.workspaceId, 'w1');
  });

  it('meta: the first claim of a key wins, for good and across connections', async () => {
    assert.equal(await h().repos.meta.claim('k', 'first'), 'first');
    assert.equal(await h().repos.meta.claim('k', 'second'), 'first');
    const other = (await h().second()).meta;
    const [a, b] = await Promise.all([h().repos.meta.claim('race', 'a'), other.claim('race', 'b')]);
    assert.equal(a, b);
  });
}
