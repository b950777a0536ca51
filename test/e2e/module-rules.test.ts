import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MODULE_HOP_WINDOW_MS, MODULE_PACE_MAX, MODULE_PACE_WINDOW_MS } from '../../src/messaging/limits.js';
import { askModule } from '../../src/modules/index.js';
import { SqliteTranscriptRepository } from '../../src/store/repos/transcript.js';
import { ManualClock } from '../support/events.js';
import { openTab, type OpenedTab } from '../support/module.js';
import { startStack, type Stack } from '../support/stack.js';
import { sqliteDb } from '../support/daemon.js';

/**
 * The rules through the daemon, on a clock the test moves (style.md §5): no
 * test here waits for time to pass. Tabs read their own inboxes, so no agent
 * turn runs and every step is the test's.
 */
describe('module rules on an injected clock, over the socket (seed 004)', () => {
  let s: Stack;
  const clock = new ManualClock();
  before(async () => {
    s = await startStack({ clock, config: { sessionIdleTimeoutMs: 0 } });
  });
  after(() => s.close());

  const readingTab = async (): Promise<OpenedTab> => {
    const tab = await openTab(s.daemon);
    s.daemon.daemon.core.messaging.declare(tab.sessionId, { delivery: 'inbox' });
    return tab;
  };
  const send = (from: OpenedTab, to: OpenedTab | string, text = 'ping') =>
    askModule(from.socket, { token: from.token, op: 'send', tab: typeof to === 'string' ? to : to.tab, text });
  const take = (tab: OpenedTab) => askModule(tab.socket, { token: tab.token, op: 'inbox' });

  it('refuses a tab without network sending to one with it, and lets the other direction through', async () => {
    const offline = await readingTab();
    const online = await readingTab();
    s.daemon.daemon.core.messaging.declare(offline.sessionId, { network: false });
    const refused = await send(offline, online);
    assert.equal(refused.ok, false);
    assert.equal(refused.code, 'network_rule');
    assert.match(refused.text, /could carry your files out/);
    assert.equal((await send(online, offline)).ok, true);
    assert.deepEqual((await take(online)).messages, [], 'nothing of the refused message arrived');
  });

  it('cuts a chain at the 7th hop and lets the tabs start a new one after 10 minutes', async () => {
    const a = await readingTab();
    const b = await readingTab();
    const steps: (true | string)[] = [];
    let [from, to] = [a, b];
    let handedAt = clock.t;
    for (let hop = 1; hop <= 7; hop++) {
      clock.t += 1000;
      const answer = await send(from, to, `hop ${hop}`);
      steps.push(answer.ok ? true : answer.code!);
      if (!answer.ok) {
        assert.match(answer.text, /step 7 of one chain/);
        break;
      }
      assert.equal((await take(to)).messages!.length, 1);
      handedAt = clock.t;
      [from, to] = [to, from];
    }
    assert.deepEqual(steps, [true, true, true, true, true, true, 'hop_limit']);
    clock.t = handedAt + MODULE_HOP_WINDOW_MS - 1;
    assert.equal((await send(from, to, 'too soon')).code, 'hop_limit', 'the window counts from the last message handed over');
    clock.t += 1;
    assert.equal((await send(from, to, 'a new chain')).ok, true);
  });

  it('stops a tab after five messages a minute, says why on its transcript, and lets it go a minute later', async () => {
    const a = await readingTab();
    const b = await readingTab();
    for (let i = 0; i < MODULE_PACE_MAX; i++) {
      clock.t += 1000;
      assert.equal((await send(a, b, `m${i}`)).ok, true);
    }
    const refused = await send(a, b, 'one too many');
    assert.equal(refused.code, 'pace_limit');
    assert.match(refused.text, /sent 5 messages in the last 60 seconds/);
    const sixth = await send(a, 'all', 'to everyone');
    assert.equal(sixth.code, 'pace_limit', 'a message to all is paced the same way');
    clock.t += MODULE_PACE_WINDOW_MS - MODULE_PACE_MAX * 1000 + 1000;
    assert.equal((await send(a, b, 'after a minute')).ok, true);
    assert.deepEqual(
      (await take(b)).messages!.map((m) => m.text),
      ['m0', 'm1', 'm2', 'm3', 'm4', 'after a minute'],
      'refused messages never arrived',
    );
    const records = (await new SqliteTranscriptRepository(sqliteDb(s.daemon.daemon)).all(a.sessionId)).filter((r) => r.kind === 'module_message');
    const refusals = records.filter((r) => r.data.ok === false);
    assert.deepEqual(
      refusals.map((r) => [r.data.direction, r.data.code, r.data.text]),
      [
        ['out', 'pace_limit', 'one too many'],
        ['out', 'pace_limit', 'to everyone'],
      ],
    );
    assert.equal(records.filter((r) => r.data.ok === true).length, MODULE_PACE_MAX + 1);
  });
});
