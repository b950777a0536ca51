import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MODULE_HOP_WINDOW_MS, MODULE_MAX_HOPS, MODULE_PACE_MAX, MODULE_PACE_WINDOW_MS } from '../../../src/messaging/limits.js';
import { MessageRules, type End } from '../../../src/messaging/rules.js';

const ONLINE = true;
const OFFLINE = false;
const end = (key: string, network: boolean): End => ({ key, network });
const T0 = 1_700_000_000_000;

describe('module rules as pure functions of now (seed 004)', () => {
  it('never lets a tab without network send to a tab with it, and says why', () => {
    const rules = new MessageRules();
    const refused = rules.check(end('a', OFFLINE), end('b', ONLINE), T0);
    assert.equal(refused.ok, false);
    assert.ok(!refused.ok);
    assert.equal(refused.code, 'network_rule');
    assert.match(refused.text, /without network access may not send to a tab with it/);
    assert.deepEqual(rules.check(end('a', ONLINE), end('b', OFFLINE), T0), { ok: true, hop: 1 }, 'the other way leaks nothing');
    assert.deepEqual(rules.check(end('a', OFFLINE), end('b', OFFLINE), T0), { ok: true, hop: 1 });
    assert.deepEqual(rules.check(end('a', ONLINE), end('b', ONLINE), T0), { ok: true, hop: 1 });
  });

  it('cuts a chain of two tabs answering each other at the 7th hop', () => {
    const rules = new MessageRules();
    const [a, b] = [end('a', ONLINE), end('b', ONLINE)];
    const hops: number[] = [];
    let cut: string | undefined;
    for (let step = 0; step < 10; step++) {
      // A minute apart, so the pace never stands in the way: only the chain does.
      const now = T0 + step * 60_000;
      const [from, to] = step % 2 === 0 ? [a, b] : [b, a];
      const verdict = rules.check(from, to, now);
      if (!verdict.ok) {
        cut = verdict.code;
        assert.match(verdict.text, /step 7 of one chain/);
        break;
      }
      rules.recordSent(from.key, now);
      rules.recordReceived(to.key, verdict.hop, now);
      hops.push(verdict.hop);
    }
    assert.deepEqual(hops, [1, 2, 3, 4, 5, 6]);
    assert.equal(hops.length, MODULE_MAX_HOPS);
    assert.equal(cut, 'hop_limit');
  });

  it('starts a new chain once the hop window has passed since the tab was last handed a message', () => {
    const rules = new MessageRules();
    rules.recordReceived('a', MODULE_MAX_HOPS, T0);
    assert.equal(rules.check(end('a', ONLINE), end('b', ONLINE), T0).ok, false);
    const justBefore = rules.check(end('a', ONLINE), end('b', ONLINE), T0 + MODULE_HOP_WINDOW_MS - 1);
    assert.ok(!justBefore.ok);
    assert.equal(justBefore.code, 'hop_limit');
    assert.equal(justBefore.retryAfterMs, 1);
    assert.deepEqual(rules.check(end('a', ONLINE), end('b', ONLINE), T0 + MODULE_HOP_WINDOW_MS), { ok: true, hop: 1 });
  });

  it('stops a tab after five messages in a minute and lets it go once the oldest leaves the window', () => {
    const rules = new MessageRules();
    const [from, to] = [end('a', ONLINE), end('b', ONLINE)];
    for (let second = 0; second < MODULE_PACE_MAX; second++) {
      const now = T0 + second * 1000;
      assert.deepEqual(rules.check(from, to, now), { ok: true, hop: 1 });
      rules.recordSent(from.key, now);
    }
    const later = T0 + 10_000;
    const refused = rules.check(from, to, later);
    assert.ok(!refused.ok);
    assert.equal(refused.code, 'pace_limit');
    assert.match(refused.text, /sent 5 messages in the last 60 seconds/);
    assert.equal(refused.retryAfterMs, MODULE_PACE_WINDOW_MS - 10_000);
    assert.equal(rules.check(end('c', ONLINE), to, later).ok, true, 'another sender has its own pace');
    assert.equal(rules.check(from, to, T0 + MODULE_PACE_WINDOW_MS - 1).ok, false);
    assert.equal(rules.check(from, to, T0 + MODULE_PACE_WINDOW_MS).ok, true, 'the oldest message left the window');
  });

  it('asks the rules in order: network, chain, then pace', () => {
    const rules = new MessageRules();
    rules.recordReceived('a', MODULE_MAX_HOPS, T0);
    for (let i = 0; i < MODULE_PACE_MAX; i++) rules.recordSent('a', T0);
    const code = (v: ReturnType<MessageRules['check']>) => (v.ok ? 'ok' : v.code);
    assert.equal(code(rules.check(end('a', OFFLINE), end('b', ONLINE), T0)), 'network_rule');
    assert.equal(code(rules.check(end('a', ONLINE), end('b', ONLINE), T0)), 'hop_limit');
    rules.recordReceived('a', 1, T0);
    assert.equal(code(rules.check(end('a', ONLINE), end('b', ONLINE), T0)), 'pace_limit');
  });

  it('forgets a closed tab entirely', () => {
    const rules = new MessageRules();
    rules.recordReceived('a', MODULE_MAX_HOPS, T0);
    for (let i = 0; i < MODULE_PACE_MAX; i++) rules.recordSent('a', T0);
    rules.forget('a');
    assert.deepEqual(rules.check(end('a', ONLINE), end('b', ONLINE), T0), { ok: true, hop: 1 });
  });
});
