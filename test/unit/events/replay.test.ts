import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventBus } from '../../../src/events/bus.js';
import { MAX_REPLAY_BYTES } from '../../../src/events/limits.js';
import { ManualClock, SubscriptionReader, brief } from '../../support/events.js';

function busWith(events: number, ringSize = 100, lastEventId = 0) {
  const bus = new EventBus({ ringSize, clock: new ManualClock(), lastEventId });
  for (let i = 0; i < events; i++) bus.publish({ type: 'session_update', data: { n: i } });
  return bus;
}

async function open(bus: EventBus, options: Parameters<EventBus['subscribe']>[0]) {
  return new SubscriptionReader(bus.subscribe(options)).available();
}

describe('replay from a cursor (spec §7.4)', () => {
  it('replays the events after the cursor, then replay_complete with both ids, then live events', async () => {
    const bus = busWith(9);
    const r = new SubscriptionReader(bus.subscribe({ lastEventId: 2, epoch: bus.epoch }));
    bus.publish({ type: 'session_update', data: { live: true } });
    const frames = await r.available();
    assert.deepEqual(brief(frames), [3, 4, 5, 6, 7, 8, 9, 'replay_complete', 10]);
    const done = frames[7]!;
    assert.deepEqual(done.data, { lastReplayedEventId: 9, lastEventId: 9, replayedCount: 7 });
    assert.equal(Object.keys(done.data).join(','), 'lastReplayedEventId,lastEventId,replayedCount');
  });

  it('answers a caught-up cursor with replay_complete {replayedCount: 0} only', async () => {
    const bus = busWith(9);
    const frames = await open(bus, { lastEventId: 9, epoch: bus.epoch });
    assert.deepEqual(brief(frames), ['replay_complete']);
    assert.deepEqual(frames[0]!.data, { replayedCount: 0 });
  });

  it('replays the whole ring for cursor 0, with or without an epoch', async () => {
    const bus = busWith(4);
    assert.deepEqual(brief(await open(bus, { lastEventId: 0 })), [1, 2, 3, 4, 'replay_complete']);
    assert.deepEqual(brief(await open(bus, { lastEventId: 0, epoch: bus.epoch })), [1, 2, 3, 4, 'replay_complete']);
  });

  it('answers cursor 0 on an empty bus with an empty replay_complete', async () => {
    const bus = busWith(0);
    const frames = await open(bus, { lastEventId: 0 });
    assert.deepEqual(brief(frames), ['replay_complete']);
    assert.deepEqual(frames[0]!.data, { replayedCount: 0 });
  });

  it('reports a stale epoch as epoch_reset/epoch_mismatch and replays the whole ring', async () => {
    const bus = busWith(9);
    const frames = await open(bus, { lastEventId: 2, epoch: 'stale-epoch-0001' });
    assert.deepEqual(brief(frames), ['state_resync_required', 1, 2, 3, 4, 5, 6, 7, 8, 9, 'replay_complete']);
    assert.deepEqual(frames[0]!.data, { reason: 'epoch_reset', detail: 'epoch_mismatch', lastDeliveredId: 2, earliestAvailableId: 1 });
    assert.equal(frames[0]!.id, undefined);
    assert.deepEqual(frames.at(-1)!.data, { lastReplayedEventId: 9, lastEventId: 9, replayedCount: 9 });
  });

  it('reports a cursor from the future as epoch_reset without a detail and replays the whole ring', async () => {
    const bus = busWith(9);
    for (const cursor of [10, 999_999]) {
      const frames = await open(bus, { lastEventId: cursor, epoch: bus.epoch });
      assert.deepEqual(brief(frames), ['state_resync_required', 1, 2, 3, 4, 5, 6, 7, 8, 9, 'replay_complete']);
      assert.deepEqual(frames[0]!.data, { reason: 'epoch_reset', lastDeliveredId: cursor, earliestAvailableId: 1 });
    }
  });

  it('names the next id as earliest available when an epoch reset meets an empty ring', async () => {
    const bus = busWith(0);
    const frames = await open(bus, { lastEventId: 5, epoch: 'old' });
    assert.deepEqual(brief(frames), ['state_resync_required', 'replay_complete']);
    assert.deepEqual(frames[0]!.data, { reason: 'epoch_reset', detail: 'epoch_mismatch', lastDeliveredId: 5, earliestAvailableId: 1 });
  });

  it('reports ring_evicted when the ring no longer holds the event after the cursor, then replays what it holds', async () => {
    const bus = busWith(10, 4);
    const frames = await open(bus, { lastEventId: 3, epoch: bus.epoch });
    assert.deepEqual(brief(frames), ['state_resync_required', 7, 8, 9, 10, 'replay_complete']);
    assert.deepEqual(frames[0]!.data, { reason: 'ring_evicted', lastDeliveredId: 3, earliestAvailableId: 7 });
    // A cursor right before the oldest held event is still a clean replay.
    assert.deepEqual(brief(await open(bus, { lastEventId: 6 })), [7, 8, 9, 10, 'replay_complete']);
  });

  it('reports seeded_replay_not_in_ring for a seeded bus whose earlier events were never in the ring', async () => {
    const bus = busWith(0, 100, 20);
    const frames = await open(bus, { lastEventId: 5 });
    assert.deepEqual(brief(frames), ['state_resync_required', 'replay_complete']);
    assert.deepEqual(frames[0]!.data, { reason: 'seeded_replay_not_in_ring', lastDeliveredId: 5, earliestAvailableId: 21 });
    // The seeded high-water mark itself is caught up.
    assert.deepEqual(brief(await open(bus, { lastEventId: 20 })), ['replay_complete']);
  });

  it('stops replay at the 8 MiB budget with replay_budget_exceeded naming the first skipped id', async () => {
    const bus = new EventBus({ ringSize: 100, clock: new ManualClock() });
    const big = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 10; i++) bus.publish({ type: 'session_update', data: { big } });
    const frames = await open(bus, { lastEventId: 0 });
    const replayed = frames.filter((f) => f.id !== undefined);
    assert.ok(replayed.length >= 1 && replayed.length < 10);
    const bytes = replayed.reduce((n, f) => n + Buffer.byteLength(JSON.stringify(f)), 0);
    assert.ok(bytes <= MAX_REPLAY_BYTES, `${bytes}`);
    const k = replayed.length;
    assert.deepEqual(brief(frames), [...replayed.map((f) => f.id), 'state_resync_required', 'replay_complete']);
    assert.deepEqual(frames[k]!.data, { reason: 'replay_budget_exceeded', lastDeliveredId: k, earliestAvailableId: k + 1 });
    assert.deepEqual(frames[k + 1]!.data, { lastReplayedEventId: k, lastEventId: k, replayedCount: k });
  });

  it('always replays at least one event even when it alone is over the budget', async () => {
    const bus = new EventBus({ ringSize: 10, clock: new ManualClock() });
    bus.publish({ type: 'session_update', data: { huge: 'y'.repeat(MAX_REPLAY_BYTES + 10) } });
    bus.publish({ type: 'session_update', data: { small: true } });
    const frames = await open(bus, { lastEventId: 0 });
    assert.deepEqual(brief(frames), [1, 'state_resync_required', 'replay_complete']);
    assert.deepEqual(frames[1]!.data, { reason: 'replay_budget_exceeded', lastDeliveredId: 1, earliestAvailableId: 2 });
  });

  it('places the snapshot right after replay_complete when there is a cursor', async () => {
    const bus = busWith(3);
    const snapshot = { sessionId: 's', currentModelId: 'm', currentApprovalMode: 'auto', recordingDegraded: false };
    const frames = await open(bus, { lastEventId: 1, snapshot });
    assert.deepEqual(brief(frames), [2, 3, 'replay_complete', 'session_snapshot']);
    const stale = await open(bus, { lastEventId: 1, epoch: 'stale', snapshot });
    assert.deepEqual(brief(stale), ['state_resync_required', 1, 2, 3, 'replay_complete', 'session_snapshot']);
  });

  it('loses and duplicates nothing between replay and live events published right after subscribing', async () => {
    const bus = busWith(50);
    const readers: SubscriptionReader[] = [];
    // Interleave subscriptions with publishes: each subscriber must see 1..N exactly once, in order.
    for (let i = 0; i < 10; i++) {
      readers.push(new SubscriptionReader(bus.subscribe({ lastEventId: i * 3 })));
      bus.publish({ type: 'session_update', data: { i } });
    }
    const last = bus.lastEventId;
    for (const [i, r] of readers.entries()) {
      const ids = (await r.available()).filter((f) => f.id !== undefined).map((f) => f.id);
      assert.deepEqual(ids, Array.from({ length: last - i * 3 }, (_, k) => i * 3 + k + 1));
    }
  });
});
