import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { BusNode } from '../../../src/cluster/bus-node.js';
import { connectNats } from '../../../src/cluster/nats-transport.js';
import { eventsSubject } from '../../../src/cluster/subjects.js';
import type { BusTransport } from '../../../src/cluster/transport.js';
import { WatchedSessions } from '../../../src/cluster/watched-sessions.js';
import { EventBus } from '../../../src/events/bus.js';
import type { EventEnvelope } from '../../../src/events/types.js';
import { silentLogger } from '../../../src/log.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { ManualClock, readFrames as read } from '../../support/events.js';
import { natsMissing, startNats, type NatsServer } from '../../support/nats.js';

const NOTICE_MS = 60_000;
const chunk = (text: string) => ({ type: 'session_update', data: { text } });

describe('WatchedSessions', () => {
  it('holds a mark for its time, renews it on the next mark, and forgets it after', () => {
    const clock = new ManualClock(1000);
    const watched = new WatchedSessions(() => clock.now(), 100);
    assert.equal(watched.has('s'), false);
    watched.mark('s');
    clock.t += 99;
    assert.equal(watched.has('s'), true);
    watched.mark('s');
    clock.t += 99;
    assert.equal(watched.has('s'), true, 'the second mark counts from when it was made');
    clock.t += 1;
    assert.equal(watched.has('s'), false);
    assert.equal(watched.has('other'), false);
  });
});

describe('an owner publishes a session’s events only while another node follows it', { skip: natsMissing() }, () => {
  let nats: NatsServer;
  let owner: BusNode;
  let front: BusNode;
  let observer: BusTransport;
  const clock = new ManualClock(1000);
  const buses = new Map<string, EventBus>();

  before(async () => {
    nats = await startNats();
    const node = async (nodeId: string) =>
      new BusNode({
        transport: await connectNats(nats.url, nodeId),
        placement: { nodeId, locate: async () => (nodeId === 'owner' ? { kind: 'local' } : { kind: 'remote', nodeId: 'owner' }) },
        clock,
        log: silentLogger(),
        followedNoticeMs: NOTICE_MS,
      });
    owner = await node('owner');
    front = await node('front');
    observer = await connectNats(nats.url, 'observer');
    owner.serve({
      handle: async () => ({ status: 500, headers: {}, body: '' }),
      open: async (sessionId) => {
        const bus = buses.get(sessionId);
        if (!bus) throw new BerthError('session_not_found');
        return { epoch: bus.epoch, replayFor: (c, max) => bus.replayFor(c, max), snapshot: () => ({}), now: () => clock.now() };
      },
      followed: () => undefined,
    });
  });

  after(async () => {
    await observer?.close();
    await front?.close();
    await owner?.close();
    await nats?.stop();
  });

  it('sends nothing before a follower asks, everything after its replay, and stops once its notices stop', async () => {
    const sessionId = randomUUID();
    const bus = new EventBus({ ringSize: 100, clock, tap: owner.tapFor(sessionId)! });
    buses.set(sessionId, bus);
    const seen: number[] = [];
    observer.subscribe(eventsSubject(sessionId), (data) => seen.push((JSON.parse(Buffer.from(data).toString('utf8')) as { event: EventEnvelope }).event.id!));
    await observer.flush();

    bus.publish(chunk('nobody follows'));
    const feed = await front.follow(sessionId, 'owner', { lastEventId: 0, epoch: bus.epoch });
    bus.publish(chunk('followed'));
    assert.deepEqual((await read(feed, 3)).map((f) => f.id ?? f.type), [1, 'replay_complete', 2], 'the replay holds the first event, the bus the second');

    // Past the hold with no notice from the follower: the owner stops publishing.
    clock.t += 3 * NOTICE_MS;
    bus.publish(chunk('no longer followed'));
    // The follower's notice marks the session again; a forwarded request behind it on the same
    // connection is answered only after the owner has read the notice.
    front.noticeFollowed();
    await front.forward('owner', { method: 'GET', url: '/barrier', headers: {} });
    bus.publish(chunk('followed again'));
    while (seen.length < 2) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(seen, [2, 4], 'events 1 and 3 never went on the bus');
    assert.deepEqual(await read(feed, 1), [], 'the follower saw the gap and ended its stream, so its client resumes from the replay');
  });
});
