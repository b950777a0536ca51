import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { clusterEventTap } from '../../../src/cluster/event-tap.js';
import { connectNats } from '../../../src/cluster/nats-transport.js';
import { openRemoteFeed } from '../../../src/cluster/remote-feed.js';
import { serveReplays } from '../../../src/cluster/replay-server.js';
import { downSubject, eventsSubject } from '../../../src/cluster/subjects.js';
import type { BusTransport } from '../../../src/cluster/transport.js';
import { EventBus } from '../../../src/events/bus.js';
import type { EventEnvelope, SubscribeOptions } from '../../../src/events/types.js';
import { silentLogger } from '../../../src/log.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { ManualClock, readFrames as read } from '../../support/events.js';
import { natsMissing, startNats, type NatsServer } from '../../support/nats.js';

const skip = natsMissing();
const chunk = (text: string) => ({ type: 'session_update', data: { text } });

const brief = (frames: EventEnvelope[]) => frames.map((f) => (f.id === undefined ? f.type : `${f.id}`));

/** Waits until `condition` holds, checking after each turn of the event loop (messages arrive between turns). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setImmediate(r));
}

describe('a session followed from another node', { skip }, () => {
  let nats: NatsServer;
  let owner: BusTransport;
  let follower: BusTransport;
  const clock = new ManualClock(1000);
  const buses = new Map<string, EventBus>();

  before(async () => {
    nats = await startNats();
    owner = await connectNats(nats.url, 'owner');
    follower = await connectNats(nats.url, 'follower');
    serveReplays(owner, 'owner', async (sessionId) => {
      const bus = buses.get(sessionId);
      if (!bus) throw new BerthError('session_not_found');
      return { epoch: bus.epoch, replayFor: (c, max) => bus.replayFor(c, max), snapshot: () => ({ sessionId }), now: () => clock.now() };
    }, silentLogger());
    await owner.flush();
  });

  after(async () => {
    await follower?.close();
    await owner?.close();
    await nats?.stop();
  });

  function ownerBus(sessionId: string, ringSize = 100): EventBus {
    const bus = new EventBus({ ringSize, clock, tap: clusterEventTap(owner, sessionId, silentLogger()) });
    buses.set(sessionId, bus);
    return bus;
  }

  const follow = (sessionId: string, subscribe: SubscribeOptions = {}) =>
    openRemoteFeed({ transport: follower, sessionId, ownerNodeId: 'owner', subscribe, timeoutMs: 5000, now: () => clock.now(), newId: randomUUID });

  it('replays after the cursor, then streams the live events after the replay', async () => {
    const id = randomUUID();
    const bus = ownerBus(id);
    for (const t of ['a', 'b', 'c']) bus.publish(chunk(t));
    const feed = await follow(id, { lastEventId: 1, epoch: bus.epoch });
    assert.equal(feed.epoch, bus.epoch);
    bus.publish(chunk('d'));
    assert.deepEqual(brief(await read(feed, 4)), ['2', '3', 'replay_complete', '4']);
    feed.close();
  });

  it('drops an event the replay already held and delivers the next one once', async () => {
    const id = randomUUID();
    const bus = ownerBus(id);
    const first = bus.publish(chunk('a'));
    const feed = await follow(id, { lastEventId: 0, epoch: bus.epoch });
    // The same event again on the subject, as a subscription made before the replay would see it.
    follower.publish(eventsSubject(id), JSON.stringify({ epoch: bus.epoch, event: first }));
    await follower.flush();
    bus.publish(chunk('b'));
    assert.deepEqual(brief(await read(feed, 3)), ['1', 'replay_complete', '2']);
    feed.close();
  });

  it('tells a client with another epoch to resync, as one daemon does', async () => {
    const id = randomUUID();
    const bus = ownerBus(id);
    bus.publish(chunk('a'));
    const feed = await follow(id, { lastEventId: 5, epoch: 'an-old-epoch' });
    const [resync, replayed] = await read(feed, 2);
    assert.equal(resync!.type, 'state_resync_required');
    assert.equal(resync!.data.reason, 'epoch_reset');
    assert.equal(resync!.data.detail, 'epoch_mismatch');
    assert.equal(replayed!.id, 1);
    feed.close();
  });

  it('sends the owner’s session snapshot right after the replay', async () => {
    const id = randomUUID();
    const bus = ownerBus(id);
    const feed = await follow(id, { lastEventId: 0, epoch: bus.epoch, snapshot: {} });
    const frames = await read(feed, 2);
    assert.deepEqual(brief(frames), ['replay_complete', 'session_snapshot']);
    assert.deepEqual(frames[1]!.data, { sessionId: id });
    feed.close();
  });

  it('evicts a follower that does not read, within the same queue bounds', async () => {
    const id = randomUUID();
    const bus = ownerBus(id);
    const feed = await follow(id, { maxQueued: 16 });
    for (let i = 0; i < 40; i++) bus.publish(chunk(`e${i}`));
    await until(() => feed.state().evicted !== undefined);
    assert.equal(feed.state().evicted, 'queue_overflow');
    const frames = await read(feed, 100);
    assert.equal(frames.at(-1)!.type, 'client_evicted');
    assert.equal(await feed.next(), null);
  });

  it('ends the stream when the session closes, with the closing event last', async () => {
    const id = randomUUID();
    const bus = ownerBus(id);
    const feed = await follow(id);
    bus.close({ type: 'session_closed', data: { reason: 'test' } });
    assert.deepEqual(brief(await read(feed, 5)), ['1']);
    assert.equal(await feed.next(), null);
  });

  it('ends the stream when the session gets a new epoch, so the client resumes and resyncs', async () => {
    const id = randomUUID();
    ownerBus(id);
    const feed = await follow(id);
    const reborn = ownerBus(id);
    reborn.publish(chunk('after a restart'));
    assert.deepEqual(await read(feed, 1), []);
  });

  it('ends the stream when events went missing between owner and follower', async () => {
    const id = randomUUID();
    const bus = ownerBus(id);
    const feed = await follow(id);
    follower.publish(eventsSubject(id), JSON.stringify({ epoch: bus.epoch, event: { id: 7, v: 1, type: 'x', data: {} } }));
    assert.deepEqual(await read(feed, 1), []);
  });

  it('ends the stream when the owner says it stops', async () => {
    const id = randomUUID();
    ownerBus(id);
    const feed = await follow(id);
    owner.publish(downSubject('owner'), '');
    assert.deepEqual(await read(feed, 1), []);
  });

  it('answers the owner’s refusal, and 503 owner_unreachable when no node answers', async () => {
    await assert.rejects(follow(randomUUID()), (err: BerthError) => err.code === 'session_not_found');
    const lost = openRemoteFeed({ transport: follower, sessionId: randomUUID(), ownerNodeId: 'gone', subscribe: {}, timeoutMs: 5000, now: () => 0, newId: randomUUID });
    await assert.rejects(lost, (err: BerthError) => err.code === 'owner_unreachable' && err.status === 503);
  });
});
