import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DaemonClient, parseSseStream } from '@qwen-code/sdk/daemon';
import { frameOf } from '../../src/events/envelope.js';
import { SSE_HEARTBEAT } from '../../src/net/sse-encode.js';
import type { Subscription } from '../../src/events/types.js';
import { streamSubscription } from '../../src/http/sse.js';
import { RawStream, SdkStream, frameIds, startSseApp, until, type SseApp } from '../support/sse-app.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const update = (text: string) => ({
  type: 'session_update',
  data: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
});

describe('SSE event stream over a real socket (spec §7)', () => {
  let s: SseApp;
  before(async () => {
    s = await startSseApp();
  });
  after(() => s.close());

  it('flushes the stream headers before any event exists', async () => {
    const bus = s.bus('headers');
    const a = await SdkStream.open(`${s.url}/session/headers/events`);
    const b = await SdkStream.open(`${s.url}/session/headers/events`);
    assert.equal(bus.lastEventId, 0, 'no event was needed to receive the headers');
    const h = a.response.headers;
    assert.equal(h.get('content-type'), 'text/event-stream');
    assert.equal(h.get('cache-control'), 'no-cache, no-transform');
    assert.equal(h.get('connection'), 'keep-alive');
    assert.equal(h.get('x-accel-buffering'), 'no');
    assert.equal(h.get('vary'), 'Origin', 'headers set by earlier hooks are kept');
    assert.equal(h.get('x-qwen-event-epoch'), bus.epoch);
    assert.match(h.get('x-qwen-sse-stream-id') ?? '', UUID_V4);
    assert.notEqual(h.get('x-qwen-sse-stream-id'), b.response.headers.get('x-qwen-sse-stream-id'));
    a.close();
    b.close();
  });

  it('streams live events in order with their whole envelopes, as the SDK parser reads them', async () => {
    const bus = s.bus('live');
    const stream = await SdkStream.open(`${s.url}/session/live/events`);
    await until(() => bus.subscriberCount === 1);
    const sent = [
      bus.publish(update('Hello ')),
      bus.publish(update('world')),
      bus.publish({ type: 'turn_complete', data: { sessionId: 's', stopReason: 'end_turn', promptId: 'p' }, promptId: 'p', originatorClientId: 'c' }),
    ];
    assert.deepEqual(await stream.take(3), sent);
    stream.close();
  });

  it('is accepted by the official DaemonClient, which learns the epoch and the stream id', async () => {
    const bus = s.bus('sdk');
    bus.publish(update('one'));
    bus.publish(update('two'));
    let epoch: string | undefined;
    let streamId: string | undefined;
    const abort = new AbortController();
    const client = new DaemonClient({ baseUrl: s.url });
    const events = client.subscribeEvents('sdk', {
      lastEventId: 1,
      epoch: bus.epoch,
      signal: abort.signal,
      onEpoch: (e) => (epoch = e),
      onSseStreamAccepted: (id) => (streamId = id),
    });
    const got = [];
    for await (const e of events) {
      got.push(e);
      if (e.type === 'replay_complete') break;
    }
    abort.abort();
    assert.deepEqual(frameIds(got), [2, 'replay_complete']);
    assert.equal(epoch, bus.epoch);
    assert.match(streamId ?? '', UUID_V4);
  });

  it('replays after a cursor with its epoch, then continues live without a gap', async () => {
    const bus = s.bus('replay');
    for (let i = 1; i <= 9; i++) bus.publish(update(String(i)));
    const stream = await SdkStream.open(`${s.url}/session/replay/events`, {
      'last-event-id': '2',
      'x-qwen-event-epoch': bus.epoch,
    });
    const replay = await stream.take(8);
    assert.deepEqual(frameIds(replay), [3, 4, 5, 6, 7, 8, 9, 'replay_complete']);
    assert.deepEqual(replay[7]!.data, { lastReplayedEventId: 9, lastEventId: 9, replayedCount: 7 });
    bus.publish(update('10'));
    assert.deepEqual(frameIds(await stream.take(1)), [10]);
    stream.close();
  });

  it('tells a client with a stale epoch to resync, then replays the whole ring', async () => {
    const bus = s.bus('stale');
    for (let i = 1; i <= 3; i++) bus.publish(update(String(i)));
    const stream = await SdkStream.open(`${s.url}/session/stale/events`, {
      'last-event-id': '2',
      'x-qwen-event-epoch': 'stale-epoch-0001',
    });
    const frames = await stream.take(5);
    assert.deepEqual(frameIds(frames), ['state_resync_required', 1, 2, 3, 'replay_complete']);
    assert.deepEqual(frames[0]!.data, { reason: 'epoch_reset', detail: 'epoch_mismatch', lastDeliveredId: 2, earliestAvailableId: 1 });
    stream.close();
  });

  it('tells a client with a cursor from the future to resync, and ignores a malformed epoch', async () => {
    const bus = s.bus('future');
    for (let i = 1; i <= 3; i++) bus.publish(update(String(i)));
    const ahead = await SdkStream.open(`${s.url}/session/future/events`, { 'last-event-id': '999999', 'x-qwen-event-epoch': 'bad epoch!!' });
    const frames = await ahead.take(5);
    assert.deepEqual(frameIds(frames), ['state_resync_required', 1, 2, 3, 'replay_complete']);
    assert.deepEqual(frames[0]!.data, { reason: 'epoch_reset', lastDeliveredId: 999999, earliestAvailableId: 1 });
    ahead.close();
    const malformedEpoch = await SdkStream.open(`${s.url}/session/future/events`, { 'last-event-id': '2', 'x-qwen-event-epoch': 'bad epoch!!' });
    assert.deepEqual(frameIds(await malformedEpoch.take(2)), [3, 'replay_complete']);
    malformedEpoch.close();
  });

  it('tells a client whose cursor fell out of a small ring to resync, then replays what the ring holds', async () => {
    const small = await startSseApp({ ringSize: 3 });
    try {
      const bus = small.bus('ring');
      for (let i = 1; i <= 6; i++) bus.publish(update(String(i)));
      const stream = await SdkStream.open(`${small.url}/session/ring/events`, { 'last-event-id': '1', 'x-qwen-event-epoch': bus.epoch });
      const frames = await stream.take(5);
      assert.deepEqual(frameIds(frames), ['state_resync_required', 4, 5, 6, 'replay_complete']);
      assert.deepEqual(frames[0]!.data, { reason: 'ring_evicted', lastDeliveredId: 1, earliestAvailableId: 4 });
      stream.close();
    } finally {
      await small.close();
    }
  });

  it('opens live-only for a malformed Last-Event-ID: no replay and no replay_complete', async () => {
    const bus = s.bus('malformed');
    bus.publish(update('old'));
    const stream = await SdkStream.open(`${s.url}/session/malformed/events`, { 'last-event-id': 'abc' });
    await until(() => bus.subscriberCount === 1);
    bus.publish(update('new'));
    assert.deepEqual(frameIds(await stream.take(1)), [2]);
    stream.close();
  });

  it('puts session_snapshot first without a cursor and right after replay_complete with one', async () => {
    const bus = s.bus('snap');
    bus.publish(update('a'));
    bus.publish(update('b'));
    const live = await SdkStream.open(`${s.url}/session/snap/events?snapshot=1`);
    const first = await live.take(1);
    assert.deepEqual(first[0], {
      v: 1,
      type: 'session_snapshot',
      data: { sessionId: 'snap', currentModelId: 'scripted-model', currentApprovalMode: 'default', recordingDegraded: false },
      _meta: first[0]!._meta,
    });
    assert.equal(typeof first[0]!._meta?.serverTimestamp, 'number');
    live.close();
    const resumed = await SdkStream.open(`${s.url}/session/snap/events?snapshot=1`, { 'last-event-id': '1', 'x-qwen-event-epoch': bus.epoch });
    assert.deepEqual(frameIds(await resumed.take(3)), [2, 'replay_complete', 'session_snapshot']);
    resumed.close();
  });

  it('refuses a bad maxQueued with a JSON 400 before any stream opens, and 404s an unknown session', async () => {
    const bus = s.bus('bounds');
    for (const [q, message] of [
      ['5', '`maxQueued` must be in [16, 2048]'],
      ['4096', '`maxQueued` must be in [16, 2048]'],
      ['abc', '`maxQueued` must be a decimal integer'],
      ['', '`maxQueued` must be a decimal integer'],
    ] as const) {
      const res = await fetch(`${s.url}/session/bounds/events?maxQueued=${q}`);
      assert.equal(res.status, 400, q);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(body.code, 'invalid_max_queued');
      assert.equal(body.error, message);
    }
    assert.equal(bus.subscriberCount, 0);
    const ok = await SdkStream.open(`${s.url}/session/bounds/events?maxQueued=16&connectReason=resume&previousStreamId=89fabf4d-9a8c-4a2e-ab66-8a4b2793444e`);
    ok.close();
    const missing = await fetch(`${s.url}/session/nope/events`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as Record<string, unknown>).code, 'session_not_found');
  });

  it('delivers session_closed to every stream and then ends them all', async () => {
    const bus = s.bus('closing');
    const streams = await Promise.all([0, 1, 2].map(() => SdkStream.open(`${s.url}/session/closing/events`)));
    await until(() => bus.subscriberCount === 3);
    bus.publish(update('last words'));
    bus.publish({ type: 'session_closed', data: { sessionId: 'closing', reason: 'client_close' } });
    for (const stream of streams) {
      assert.deepEqual(frameIds(await stream.rest()), [1, 2]);
      assert.equal(stream.ended, true);
    }
  });

  it('closes the subscription when the client goes away', async () => {
    const bus = s.bus('leaving');
    const stream = await SdkStream.open(`${s.url}/session/leaving/events`);
    await until(() => bus.subscriberCount === 1);
    stream.close();
    await until(() => bus.subscriberCount === 0);
    bus.publish(update('nobody listens'));
    assert.equal(bus.subscriberCount, 0);
  });
});

describe('SSE heartbeats', () => {
  it('writes a heartbeat comment on the injected interval, which the SDK parser skips', async () => {
    const s = await startSseApp({ heartbeatMs: 20 });
    try {
      const bus = s.bus('beat');
      const raw = await RawStream.open(`${s.url}/session/beat/events`);
      await raw.until((text) => text.split(SSE_HEARTBEAT).length > 3);
      assert.ok(raw.text.startsWith('retry: 3000\n\n: heartbeat\n\n'), JSON.stringify(raw.text.slice(0, 60)));
      const sent = bus.publish(update('after the beats'));
      await raw.until((text) => text.includes('"after the beats"') && text.endsWith('\n\n'));
      raw.close();
      // The very bytes that arrived, heartbeats included, through the SDK's parser.
      const parsed = [];
      for await (const e of parseSseStream(new Response(raw.text).body!)) parsed.push(e);
      assert.deepEqual(parsed, [sent]);
    } finally {
      await s.close();
    }
  });
});

describe('SSE writer on a plain node:http response', () => {
  it('ends the stream with an id-less stream_error when reading the subscription fails', async () => {
    let closed = 0;
    let reads = 0;
    const first = frameOf({ id: 1, v: 1, type: 'session_update', data: { ok: true } });
    let detach!: () => void;
    const failing: Subscription = {
      id: 'sub',
      epoch: 'epoch-1',
      detached: new Promise<void>((r) => (detach = r)),
      takeFrame() {
        if (reads++ === 0) return first;
        throw new Error('boom');
      },
      onReadable() {},
      async nextFrame() {
        return this.takeFrame() ?? null;
      },
      async next() {
        return (await this.nextFrame())?.envelope ?? null;
      },
      close: () => {
        closed++;
        detach();
      },
    };
    const server = createServer((_req, res) => void streamSubscription(res, failing));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const stream = await SdkStream.open(`http://127.0.0.1:${port}/`);
      assert.equal(stream.response.headers.get('x-qwen-event-epoch'), 'epoch-1');
      const frames = await stream.rest();
      assert.deepEqual(frameIds(frames), [1, 'stream_error']);
      assert.deepEqual(frames[1]!.data, { error: 'boom', errorKind: 'internal_error' });
      assert.ok(closed >= 1, 'the subscription was closed');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
