import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseSseStream } from '@qwen-code/sdk/daemon';
import { MAX_QUEUED_BYTES, MAX_SUBSCRIBERS_PER_SESSION } from '../../src/config/limits.js';
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

    // The stalled client reads again: a gapless prefix, a warning, client_evicted naming the rejected id, the end.
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
    assert.equal(evicted.droppedAfter, ids.length + 1);
    assert.equal(evicted.maxQueuedBytes, MAX_QUEUED_BYTES);
    const warnings = frames.filter((f) => f.type === 'slow_client_warning');
    // The backlog only grew while the client was stalled, so the warning fired once and was never re-armed.
    assert.equal(warnings.length, 1);
    assert.equal((warnings[0]!.data as Record<string, unknown>).threshold, 'bytes');
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
});
