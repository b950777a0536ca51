import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseSseStream } from '@qwen-code/sdk/daemon';
import { MAX_QUEUED_BYTES, MAX_SUBSCRIBERS_PER_SESSION } from '../../src/events/limits.js';
import { RawStream, SdkStream, frameIds, startSseApp, until, type SseApp } from '../support/sse-app.js';

async function parseText(text: string) {
  const out = [];
  for await (const e of parseSseStream(new Response(text).body!)) out.push(e);
  return out;
}

describe('SSE backpressure and subscriber limits over real sockets (spec §7.1, §7.5)', () => {
  let s: SseApp;
  before(async () => {
    s = await startSseApp();
  });
  after(() => s.close());

  it('evicts a client that stops reading, with a bounded queue, while a healthy client receives everything', async () => {
    const bus = s.bus('stall');
    const url = `${s.url}/session/stall/events`;
    const stalled = await RawStream.open(url);
    stalled.stopReading();
    const healthy = await SdkStream.open(url);
    await until(() => bus.subscriberCount === 2);
    const stalledQueue = s.subscriptions.at(-2)!;

    // If the writer buffered into the socket instead of waiting for 'drain', this queue would never
    // fill and the loop would hit its cap: eviction itself proves the backpressure path.
    const pad = 'p'.repeat(128 * 1024);
    let published = 0;
    while (!stalledQueue.state().evicted) {
      assert.ok(published < 2000, 'the stalled client was never evicted');
      const env = bus.publish({ type: 'session_update', data: { n: published, pad } });
      published++;
      assert.equal((await healthy.take(1))[0]?.id, env.id, 'the healthy client is never held back');
      const q = stalledQueue.state();
      assert.ok(q.queueSize <= q.maxQueued, `queueSize ${q.queueSize}`);
      assert.ok(q.queuedBytes <= MAX_QUEUED_BYTES, `queuedBytes ${q.queuedBytes}`);
    }
    assert.equal(stalledQueue.state().evicted, 'queue_bytes_overflow');
    assert.equal(bus.subscriberCount, 1, 'only the stalled subscriber left');
    for (let i = 0; i < 3; i++) {
      const env = bus.publish({ type: 'session_update', data: { after: i } });
      assert.equal((await healthy.take(1))[0]?.id, env.id);
    }

    // The stalled client reads again: what had reached its socket (a gapless prefix), then client_evicted
    // naming the rejected id, then the end. The queued backlog was dropped at eviction.
    stalled.resumeReading();
    await stalled.finished();
    const frames = await parseText(stalled.text);
    const ids = frames.filter((f) => f.id !== undefined).map((f) => f.id!);
    assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => i + 1));
    const last = frames.at(-1)!;
    const evicted = last.data as Record<string, unknown>;
    assert.equal(last.type, 'client_evicted');
    assert.equal(last.id, undefined);
    assert.equal(evicted.reason, 'queue_bytes_overflow');
    assert.equal(evicted.droppedAfter, published);
    assert.ok(ids.length < published - 1, 'the dropped backlog was not written');
    assert.equal(evicted.maxQueuedBytes, MAX_QUEUED_BYTES);
    assert.equal(s.stats.snapshot().clientsEvicted, 1);

    // It may come back with its cursor and lose nothing.
    const back = await SdkStream.open(url, { 'last-event-id': String(ids.at(-1)), 'x-qwen-event-epoch': bus.epoch });
    const replay = await back.take(bus.lastEventId - ids.at(-1)! + 1);
    assert.deepEqual(frameIds(replay), [
      ...Array.from({ length: bus.lastEventId - ids.at(-1)! }, (_, i) => ids.at(-1)! + i + 1),
      'replay_complete',
    ]);
    back.close();
    healthy.close();
  });

  it('serves 64 concurrent subscribers every event in order and refuses the 65th with 429', async () => {
    const bus = s.bus('crowd');
    const url = `${s.url}/session/crowd/events`;
    const streams = await Promise.all(Array.from({ length: MAX_SUBSCRIBERS_PER_SESSION }, () => SdkStream.open(url)));
    await until(() => bus.subscriberCount === 64);

    const refused = await fetch(url);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '5');
    const body = (await refused.json()) as Record<string, unknown>;
    assert.equal(body.code, 'subscriber_limit_exceeded');
    assert.equal(body.limit, 64);
    assert.equal(body.error, 'EventBus subscriber limit reached (64)');

    for (let i = 0; i < 100; i++) bus.publish({ type: 'session_update', data: { i } });
    const expected = Array.from({ length: 100 }, (_, i) => i + 1);
    const received = await Promise.all(streams.map((st) => st.take(100)));
    for (const got of received) assert.deepEqual(frameIds(got), expected);

    streams[0]!.close();
    await until(() => bus.subscriberCount === 63);
    const again = await SdkStream.open(url);
    await until(() => bus.subscriberCount === 64);
    bus.publish({ type: 'session_update', data: { last: true } });
    assert.deepEqual(frameIds(await again.take(1)), [101]);
    again.close();
    for (const st of streams.slice(1)) st.close();
    await until(() => s.stats.snapshot().openStreams === 0);
  });

  it('drops the connection of an evicted client that never reads again once the end grace has passed', async () => {
    const g = await startSseApp({ endGraceMs: 50 });
    try {
      const bus = g.bus('dead');
      const dead = await RawStream.open(`${g.url}/session/dead/events`);
      dead.stopReading();
      await until(() => bus.subscriberCount === 1);
      const queue = g.subscriptions[0]!;
      const pad = 'd'.repeat(128 * 1024);
      // Yield between events so the writer fills the socket first; then the queue fills and overflows.
      while (!queue.state().evicted) {
        bus.publish({ type: 'session_update', data: { pad } });
        await new Promise((r) => setImmediate(r));
      }
      assert.equal(bus.subscriberCount, 0);
      // The client still reads nothing: only the server giving up can end the stream and free the socket.
      await until(() => g.stats.snapshot().openStreams === 0);
      const connections = await new Promise<number>((r) => g.app.server.getConnections((_e, n) => r(n)));
      assert.equal(connections, 0);
      dead.resumeReading();
      await dead.finished();
    } finally {
      await g.close();
    }
  });
});
