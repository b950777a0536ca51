import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { systemClock } from '../../../src/clock.js';
import { EventBus } from '../../../src/events/bus.js';
import { EventBusStats } from '../../../src/events/stats.js';
import { streamSubscription } from '../../../src/http/sse.js';

/**
 * A client that gives up on `GET /session/{id}/events` while the request is
 * still being routed (an SDK reconnecting, a tab closed) has closed the
 * response before the writer listens for `close`. The writer must still let
 * the subscription go: held, it waited forever for a `drain` that a closed
 * socket never sends, kept one of the session's 64 subscriber slots, and the
 * soak (test/soak/sessions-soak.test.ts) counted such streams by the hundred.
 */
test('a stream whose client left before it opened ends and frees its subscription', async () => {
  const stats = new EventBusStats();
  const bus = new EventBus({ ringSize: 16, clock: systemClock, stats });
  let streamed: Promise<void> | undefined;
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    // Opened only once the client is gone, as when the route was still finding the session.
    res.once('close', () => {
      streamed = streamSubscription(res, bus.subscribe({}), { stats });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  try {
    await new Promise<void>((resolve) => {
      const client = request({ host: '127.0.0.1', port, path: '/events', headers: { accept: 'text/event-stream' } });
      client.on('error', () => resolve());
      client.on('socket', (socket) => socket.once('connect', () => setTimeout(() => client.destroy(), 50)));
      client.end();
    });
    while (streamed === undefined) await new Promise((r) => setTimeout(r, 5));
    // Events published afterwards must not find a writer waiting on the dead socket.
    for (let i = 0; i < 3; i++) bus.publish({ type: 'session_update', data: { n: i } });
    const ended = await Promise.race([streamed.then(() => 'ended'), new Promise((r) => setTimeout(() => r('still open after 2 s'), 2_000))]);
    assert.equal(ended, 'ended');
    assert.equal(stats.snapshot().subscribers, 0, 'the subscription was released');
    assert.equal(stats.snapshot().openStreams, 0, 'the stream was counted closed');
  } finally {
    server.close();
  }
});
