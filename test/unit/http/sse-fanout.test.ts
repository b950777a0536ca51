import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { systemClock } from '../../../src/clock.js';
import { EventBus } from '../../../src/events/bus.js';
import { streamSubscription } from '../../../src/http/sse.js';
import { asChunk } from '../../../src/http/sse-socket.js';
import { SSE_PREAMBLE } from '../../../src/net/sse-encode.js';

test('a chunk is the size line, the bytes and CRLF, built once per frame', () => {
  const bytes = Buffer.from('id: 1\nevent: x\ndata: {"é":1}\n\n', 'utf8');
  const chunk = asChunk(bytes);
  assert.equal(chunk.toString('utf8'), `${bytes.length.toString(16)}\r\n${bytes.toString('utf8')}\r\n`);
  assert.equal(asChunk(bytes), chunk, 'every subscriber gets the same buffer');
});

/**
 * Fan-out: one event goes to every subscriber's socket inside the publisher's own call, not a
 * promise per subscriber later, and the sockets hold it until the bus has offered it to every
 * subscriber, then send it in one pass before publish returns: the first and the last subscriber
 * get it as close together as the system calls allow. The clients must still read well-formed
 * chunked SSE.
 */
test("one event is on every subscriber's socket when publish returns, and every client reads it whole", async () => {
  const bus = new EventBus({ ringSize: 16, clock: systemClock });
  const responses: ServerResponse[] = [];
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    responses.push(res);
    void streamSubscription(res, bus.subscribe({}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const subscribers = 8;
  const texts: string[] = Array.from({ length: subscribers }, () => '');
  const clients = Array.from({ length: subscribers }, (_, i) => {
    const client = request({ host: '127.0.0.1', port, path: '/events', headers: { accept: 'text/event-stream' } });
    client.on('response', (res) => {
      res.setEncoding('utf8');
      res.on('data', (text: string) => (texts[i] += text));
    });
    client.on('error', () => {});
    client.end();
    return client;
  });
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((r) => setTimeout(r, 5));
  };
  try {
    await until(() => texts.every((t) => t === SSE_PREAMBLE));
    const before = responses.map((res) => res.socket!.bytesWritten);
    // Subscribed after the streams, so the bus offers it the frame after all of them.
    const last = bus.subscribe({});
    let heldWhenLastOffered: number[] = [];
    last.onReadable(() => (heldWhenLastOffered = responses.map((res) => res.socket!.writableLength)));
    const envelope = bus.publish({ type: 'session_update', data: { text: 'for everyone, é' } });
    const written = responses.map((res, i) => res.socket!.bytesWritten - before[i]!);
    assert.ok(written.every((n) => n > 0), `bytes written during publish, per socket: ${written.join(', ')}`);
    assert.equal(new Set(written).size, 1, 'the same chunk went to every socket');
    assert.deepEqual(heldWhenLastOffered, written, 'each socket holds the frame while the bus offers it to the others');
    const left = responses.map((res) => res.socket!.writableLength);
    assert.deepEqual(left, written.map(() => 0), 'and every socket sent it before publish returned');

    await until(() => texts.every((t) => t.endsWith('\n\n') && t.length > SSE_PREAMBLE.length));
    for (const text of texts) {
      assert.equal(text.slice(SSE_PREAMBLE.length), `id: ${envelope.id}\nevent: session_update\ndata: ${JSON.stringify(envelope)}\n\n`);
    }
  } finally {
    for (const client of clients) client.destroy();
    bus.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
