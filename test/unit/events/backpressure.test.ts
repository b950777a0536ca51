import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventBus } from '../../../src/events/bus.js';
import { EventBusStats } from '../../../src/events/stats.js';
import { MAX_QUEUED_BYTES } from '../../../src/events/limits.js';
import { ManualClock, SubscriptionReader, brief } from '../../support/events.js';

function setup(stats?: EventBusStats) {
  const bus = new EventBus({ ringSize: 8000, clock: new ManualClock(), stats });
  return bus;
}
const small = (bus: EventBus, n = 1) => {
  for (let i = 0; i < n; i++) bus.publish({ type: 'session_update', data: { n: i } });
};
const sized = (bus: EventBus, chars: number) => bus.publish({ type: 'session_update', data: { pad: 'z'.repeat(chars) } });

describe('slow subscribers (spec §7.5)', () => {
  it('warns once at 75 % of the frame cap with the backlog figures', async () => {
    const stats = new EventBusStats();
    const bus = setup(stats);
    const sub = bus.subscribe({ maxQueued: 16 });
    small(bus, 16);
    const frames = await new SubscriptionReader(sub).available();
    assert.deepEqual(brief(frames), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 'slow_client_warning', 13, 14, 15, 16]);
    const warning = frames[12]!;
    assert.equal(warning.id, undefined);
    assert.deepEqual(Object.keys(warning.data), ['queueSize', 'maxQueued', 'lastEventId', 'queuedBytes', 'maxQueuedBytes', 'threshold']);
    assert.equal(warning.data.queueSize, 12);
    assert.equal(warning.data.maxQueued, 16);
    assert.equal(warning.data.lastEventId, 12);
    assert.equal(warning.data.queuedBytes, frames.slice(0, 12).reduce((n, f) => n + Buffer.byteLength(JSON.stringify(f)), 0));
    assert.equal(warning.data.maxQueuedBytes, MAX_QUEUED_BYTES);
    assert.equal(warning.data.threshold, 'frames');
    assert.equal(stats.snapshot().slowClientWarnings, 1);
  });

  it('evicts on frame overflow: the backlog is dropped, client_evicted is the last frame, the others carry on', async () => {
    const stats = new EventBusStats();
    const bus = setup(stats);
    const slow = bus.subscribe({ maxQueued: 16 });
    const healthy = new SubscriptionReader(bus.subscribe({ maxQueued: 16 }));
    const seen: number[] = [];
    for (let i = 0; i < 20; i++) {
      small(bus);
      seen.push(...(await healthy.available()).map((f) => f.id!));
      assert.ok(slow.state().queueSize <= 16, `queueSize ${slow.state().queueSize}`);
      if (i === 15) assert.equal(slow.state().queueSize, 16, 'a full backlog is still within the cap');
    }
    assert.deepEqual(seen, Array.from({ length: 20 }, (_, i) => i + 1));
    assert.equal(bus.subscriberCount, 1, 'the evicted subscriber left the bus at once');
    assert.equal(slow.state().evicted, 'queue_overflow');
    assert.equal(slow.state().queueSize, 0, 'its backlog was released');

    let settled = false;
    void slow.detached.then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, true, 'detached settles on eviction');

    const frames = await new SubscriptionReader(slow).available();
    assert.deepEqual(brief(frames), ['client_evicted']);
    const evicted = frames[0]!;
    assert.equal(evicted.id, undefined);
    assert.equal(evicted.data.reason, 'queue_overflow');
    assert.equal(evicted.data.droppedAfter, 17);
    assert.equal(evicted.data.queueSize, 16);
    assert.equal(evicted.data.maxQueued, 16);
    assert.equal(typeof evicted.data.queuedBytes, 'number');
    assert.equal(evicted.data.maxQueuedBytes, MAX_QUEUED_BYTES);
    assert.equal('eventBytes' in evicted.data, false);
    assert.equal(await slow.next(), null);
    const c = stats.snapshot();
    assert.equal(c.clientsEvicted, 1);
    assert.equal(c.subscribers, 1);
  });

  it('re-arms the warning only after the backlog drains to 37.5 %', async () => {
    const bus = setup();
    const sub = bus.subscribe({ maxQueued: 16 });
    const read: Array<number | string> = [];
    const take = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const f = (await sub.next())!;
        read.push(f.id ?? f.type);
      }
    };

    small(bus, 12); // 12 of 16 = 75 %: warning 1
    await take(5); // 7 left: above 6 (37.5 %), still disarmed
    small(bus, 5); // back to 12: no warning
    await take(6); // 6 left (the warning frame is still queued behind id 12): re-armed
    assert.equal(sub.state().queueSize, 6);
    small(bus, 6); // back to 12: warning 2
    const rest = await new SubscriptionReader(sub).available();
    read.push(...brief(rest));
    const W = 'slow_client_warning';
    assert.deepEqual(read, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, W, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, W]);
    assert.equal(rest.at(-1)!.data.queueSize, 12);
    assert.equal(rest.at(-1)!.data.lastEventId, 23);
  });

  it('does not re-arm while the byte backlog is still above 37.5 %, even when the frame backlog is not', async () => {
    const bus = setup();
    const sub = bus.subscribe({ maxQueued: 16 });
    for (let i = 0; i < 12; i++) sized(bus, 140_000); // both caps at 75 %: warning 1
    for (let i = 0; i < 6; i++) await sub.next(); // 6 frames left (37.5 %), but about 840 000 bytes (> 786 432)
    assert.equal(sub.state().queueSize, 6);
    assert.ok(sub.state().queuedBytes > MAX_QUEUED_BYTES * 0.375);
    for (let i = 0; i < 6; i++) sized(bus, 140_000);
    const warnings = (await new SubscriptionReader(sub).available()).filter((f) => f.type === 'slow_client_warning');
    assert.equal(warnings.length, 1, 'only the first warning; the second crossing was not re-armed');
  });

  it('counts serialized bytes: warns with threshold bytes and evicts with queue_bytes_overflow and eventBytes', async () => {
    const bus = setup();
    const watched = bus.subscribe({ maxQueued: 2048 });
    const stalled = bus.subscribe({ maxQueued: 2048 });
    for (let i = 0; i < 16; i++) sized(bus, 100_000); // about 1.6 MB: past 75 % of the bytes, far below 75 % of 2048 frames
    const warning = (await new SubscriptionReader(watched).available()).find((f) => f.type === 'slow_client_warning')!;
    assert.equal(warning.data.threshold, 'bytes');
    assert.equal(warning.data.lastEventId, 16);
    assert.ok((warning.data.queuedBytes as number) >= MAX_QUEUED_BYTES * 0.75);

    let published = 16;
    while (!stalled.state().evicted && published < 100) {
      sized(bus, 100_000);
      published++;
      assert.ok(stalled.state().queuedBytes <= MAX_QUEUED_BYTES, `${stalled.state().queuedBytes}`);
    }
    const [evicted] = await new SubscriptionReader(stalled).available();
    assert.equal(evicted!.type, 'client_evicted');
    assert.equal(evicted!.data.reason, 'queue_bytes_overflow');
    assert.equal(evicted!.data.droppedAfter, published);
    assert.equal(evicted!.data.maxQueuedBytes, MAX_QUEUED_BYTES);
    assert.ok((evicted!.data.eventBytes as number) > 100_000);
    assert.ok((evicted!.data.queuedBytes as number) + (evicted!.data.eventBytes as number) > MAX_QUEUED_BYTES);
  });

  it('says frames_and_bytes when both caps reach 75 % with the same event', async () => {
    const bus = setup();
    const sub = bus.subscribe({ maxQueued: 16 });
    for (let i = 0; i < 12; i++) sized(bus, 140_000); // 12 frames of > 131 072 bytes: both at 75 %
    const warning = (await new SubscriptionReader(sub).available()).find((f) => f.type === 'slow_client_warning');
    assert.equal(warning?.data.threshold, 'frames_and_bytes');
  });

  it('lets a single oversized event into an empty backlog, and evicts on the next one if it is still unread', async () => {
    const bus = setup();
    const reads = bus.subscribe();
    const stalls = bus.subscribe();
    sized(bus, MAX_QUEUED_BYTES + 1000);
    assert.equal(reads.state().evicted, undefined);
    assert.equal((await reads.next())?.id, 1);
    small(bus);
    assert.equal(reads.state().evicted, undefined);
    assert.equal(stalls.state().evicted, 'queue_bytes_overflow');
  });

  it('delivers a large replay outside the caps, so a live event right after it does not evict', async () => {
    const bus = setup();
    small(bus, 100);
    const sub = bus.subscribe({ lastEventId: 0, maxQueued: 16 });
    small(bus, 3);
    assert.equal(sub.state().evicted, undefined);
    assert.equal(sub.state().queueSize, 3);
    const frames = await new SubscriptionReader(sub).available();
    assert.equal(frames.filter((f) => f.id !== undefined).length, 103);
    assert.equal(frames[100]!.type, 'replay_complete');
    assert.equal(sub.state().queueSize, 0);
  });
});
