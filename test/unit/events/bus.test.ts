import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventBus } from '../../../src/events/bus.js';
import { EventBusStats } from '../../../src/events/stats.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { MAX_SUBSCRIBERS_PER_SESSION } from '../../../src/events/limits.js';
import { ManualClock, SubscriptionReader, brief } from '../../support/events.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function makeBus(ringSize = 100, clock = new ManualClock(), stats?: EventBusStats) {
  return new EventBus({ ringSize, clock, stats });
}

const chunk = (text: string) => ({ type: 'session_update', data: { update: { sessionUpdate: 'agent_message_chunk', text } } });

describe('event bus ids and envelopes', () => {
  it('gives each bus a fresh UUID epoch and numbers events 1, 2, 3 within it', () => {
    const a = makeBus();
    const b = makeBus();
    assert.match(a.epoch, UUID);
    assert.notEqual(a.epoch, b.epoch);
    assert.equal(a.lastEventId, 0);
    assert.deepEqual([a.publish(chunk('x')).id, a.publish(chunk('y')).id, a.publish(chunk('z')).id], [1, 2, 3]);
    assert.equal(a.lastEventId, 3);
    assert.equal(b.publish(chunk('q')).id, 1);
  });

  it('builds the envelope in the wire shape with the publisher fields and a server timestamp', () => {
    const clock = new ManualClock(1234);
    const bus = makeBus(10, clock);
    const env = bus.publish({ type: 'turn_complete', data: { stopReason: 'end_turn' }, promptId: 'p1', originatorClientId: 'c1' });
    assert.deepEqual(env, {
      id: 1,
      v: 1,
      type: 'turn_complete',
      data: { stopReason: 'end_turn' },
      promptId: 'p1',
      originatorClientId: 'c1',
      _meta: { serverTimestamp: 1234 },
    });
    assert.equal(Object.keys(env).join(','), 'id,v,type,data,promptId,originatorClientId,_meta');
  });

  it('keeps a server timestamp the publisher already set and other _meta fields', () => {
    const bus = makeBus(10, new ManualClock(9999));
    const env = bus.publish({ type: 'x', data: {}, _meta: { serverTimestamp: 42, source: 'bridge-echo' } });
    assert.deepEqual(env._meta, { serverTimestamp: 42, source: 'bridge-echo' });
  });

  it('refuses malformed events with invalid_event and never skips an id because of them', () => {
    const bus = makeBus();
    assert.equal(bus.publish(chunk('a')).id, 1);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const bad: unknown[] = [
      { type: '', data: {} },
      { type: 42, data: {} },
      { type: 'two\nlines', data: {} },
      { type: 'x', data: [] },
      { type: 'x', data: null },
      { type: 'x', data: new Date() },
      { type: 'x', data: 'text' },
      { type: 'x', data: {}, promptId: 7 },
      { type: 'x', data: {}, _meta: [] },
      { type: 'x', data: { big: 1n } },
      { type: 'x', data: circular },
      null,
    ];
    for (const input of bad) {
      assert.throws(
        () => bus.publish(input as never),
        (err: unknown) => err instanceof BerthError && err.code === 'invalid_event',
        JSON.stringify(String(input)),
      );
    }
    assert.equal(bus.lastEventId, 1);
    assert.equal(bus.publish(chunk('b')).id, 2);
  });

  it('continues the id sequence of a seeded bus', () => {
    const bus = new EventBus({ ringSize: 10, clock: new ManualClock(), lastEventId: 41 });
    assert.equal(bus.lastEventId, 41);
    assert.equal(bus.publish(chunk('a')).id, 42);
  });
});

describe('event bus fan-out', () => {
  it('delivers every event to every live subscriber in order, and nothing before it subscribed', async () => {
    const bus = makeBus();
    bus.publish(chunk('before'));
    const readers = [bus.subscribe(), bus.subscribe({ maxQueued: 16 })].map((s) => new SubscriptionReader(s));
    for (let i = 0; i < 5; i++) bus.publish(chunk(String(i)));
    for (const r of readers) assert.deepEqual(brief(await r.available()), [2, 3, 4, 5, 6]);
  });

  it('hands a subscriber that is already waiting the next event as soon as it is published', async () => {
    const bus = makeBus();
    const sub = bus.subscribe();
    const next = sub.next();
    bus.publish(chunk('now'));
    assert.equal((await next)?.id, 1);
  });

  it('refuses the 65th subscriber with subscriber_limit_exceeded and its limit, and admits one after a leave', () => {
    const stats = new EventBusStats();
    const bus = makeBus(10, new ManualClock(), stats);
    const subs = Array.from({ length: MAX_SUBSCRIBERS_PER_SESSION }, () => bus.subscribe());
    assert.equal(bus.subscriberCount, 64);
    assert.throws(
      () => bus.subscribe(),
      (err: unknown) =>
        err instanceof BerthError &&
        err.code === 'subscriber_limit_exceeded' &&
        err.status === 429 &&
        err.details.limit === 64 &&
        err.retryAfterSeconds === 5,
    );
    subs[0]!.close();
    subs[0]!.close();
    assert.equal(bus.subscriberCount, 63);
    bus.subscribe();
    const c = stats.snapshot();
    assert.equal(c.subscribers, 64);
    assert.equal(c.subscriptionsOpened, 65);
    assert.equal(c.subscriptionsRefused, 1);
  });

  it('refuses a maxQueued outside 16-2048 with invalid_max_queued', () => {
    const bus = makeBus();
    for (const maxQueued of [15, 2049, 16.5]) {
      assert.throws(() => bus.subscribe({ maxQueued }), (e: unknown) => e instanceof BerthError && e.code === 'invalid_max_queued');
    }
    bus.subscribe({ maxQueued: 16 });
    bus.subscribe({ maxQueued: 2048 });
  });

  it('puts the snapshot frame first on a live-only subscription', async () => {
    const bus = makeBus();
    bus.publish(chunk('a'));
    const r = new SubscriptionReader(bus.subscribe({ snapshot: { sessionId: 's', currentModelId: null, currentApprovalMode: null } }));
    bus.publish(chunk('b'));
    const frames = await r.available();
    assert.deepEqual(brief(frames), ['session_snapshot', 2]);
    assert.deepEqual(frames[0]!.data, { sessionId: 's', currentModelId: null, currentApprovalMode: null });
    assert.equal(frames[0]!.id, undefined);
  });
});

describe('event bus terminal events and close', () => {
  it('ends every stream right after a session_closed event and refuses later publishes and subscribes', async () => {
    const stats = new EventBusStats();
    const bus = makeBus(10, new ManualClock(), stats);
    const readers = [bus.subscribe(), bus.subscribe()].map((s) => new SubscriptionReader(s));
    bus.publish(chunk('a'));
    const closed = bus.publish({ type: 'session_closed', data: { sessionId: 's', reason: 'client_close' } });
    assert.equal(closed.id, 2);
    assert.equal(bus.isClosed, true);
    for (const r of readers) {
      assert.deepEqual(brief(await r.available()), [1, 2]);
      assert.equal(r.ended, true);
    }
    assert.throws(() => bus.publish(chunk('late')), (e: unknown) => e instanceof BerthError && e.code === 'session_closed');
    assert.throws(() => bus.subscribe(), (e: unknown) => e instanceof BerthError && e.code === 'session_closed');
    assert.equal(stats.snapshot().subscribers, 0);
    assert.equal(stats.snapshot().busesOpen, 0);
  });

  it('treats session_died as terminal too', async () => {
    const bus = makeBus();
    const r = new SubscriptionReader(bus.subscribe());
    bus.publish({ type: 'session_died', data: { sessionId: 's', reason: 'crash' } });
    assert.deepEqual(brief(await r.available()), [1]);
    assert.equal(r.ended, true);
  });

  it('close() delivers what is queued, then the final event with the next id, then ends; a second close is a no-op', async () => {
    const bus = makeBus();
    const r = new SubscriptionReader(bus.subscribe());
    bus.publish(chunk('a'));
    bus.close({ type: 'session_closed', data: { sessionId: 's', reason: 'idle_timeout' } });
    bus.close({ type: 'session_closed', data: { sessionId: 's', reason: 'again' } });
    const frames = await r.available();
    assert.deepEqual(brief(frames), [1, 2]);
    assert.equal(frames[1]!.data.reason, 'idle_timeout');
    assert.equal(r.ended, true);
    assert.equal(bus.lastEventId, 2);
  });

  it('close() without a final event just ends the streams', async () => {
    const bus = makeBus();
    const r = new SubscriptionReader(bus.subscribe());
    bus.close();
    assert.deepEqual(await r.available(), []);
    assert.equal(r.ended, true);
  });

  it('a subscription closed by its consumer stops receiving and leaves the others alone', async () => {
    const bus = makeBus();
    const gone = bus.subscribe();
    const stays = new SubscriptionReader(bus.subscribe());
    const pending = gone.next();
    gone.close();
    assert.equal(await pending, null);
    bus.publish(chunk('a'));
    assert.equal(await gone.next(), null);
    assert.deepEqual(brief(await stays.available()), [1]);
  });
});
