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

/** `count` SSE clients of one server streaming `bus`, with what each has read and the server side of each socket. */
async function streams(bus: EventBus, count: number) {
  const responses: ServerResponse[] = [];
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    responses.push(res);
    void streamSubscription(res, bus.subscribe({}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const texts: string[] = Array.from({ length: count }, () => '');
  const clients = Array.from({ length: count }, (_, i) => {
    const client = request({ host: '127.0.0.1', port, path: '/events', headers: { accept: 'text/event-stream' } });
    client.on('response', (res) => {
      res.setEncoding('utf8');
      res.on('data', (text: string) => (texts[i] += text));
    });
    client.on('error', () => {});
    client.end();
    return client;
  });
  await until(() => texts.length === count && texts.every((t) => t === SSE_PREAMBLE) && responses.length === count);
  const close = async () => {
    for (const client of clients) client.destroy();
    bus.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return { responses, texts, close };
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

/**
 * Fan-out: one event goes to every subscriber's socket inside the publisher's own call, not a
 * promise per subscriber later, and the sockets hold it until the publisher's pass is over
 * (src/http/sse-socket.ts), then send it in one pass, in the order they were written: the first
 * and the last subscriber get it as close together as the system calls allow. The clients must
 * still read well-formed chunked SSE.
 */
test("one event is on every subscriber's socket when publish returns, sent by the next tick, and every client reads it whole", async () => {
  const bus = new EventBus({ ringSize: 16, clock: systemClock });
  const { responses, texts, close } = await streams(bus, 8);
  try {
    const before = responses.map((res) => res.socket!.bytesWritten);
    // Subscribed after the streams, so the bus offers it the frame after all of them.
    const last = bus.subscribe({});
    let heldWhenLastOffered: number[] = [];
    last.onReadable(() => (heldWhenLastOffered = responses.map((res) => res.socket!.writableLength)));
    const envelope = bus.publish({ type: 'session_update', data: { text: 'for everyone, é' } });
    const held = responses.map((res) => res.socket!.writableLength);
    assert.ok(held.every((n) => n > 0), `bytes on each socket when publish returns: ${held.join(', ')}`);
    assert.equal(new Set(held).size, 1, 'the same chunk went to every socket');
    assert.deepEqual(heldWhenLastOffered, held, 'each socket holds the frame while the bus offers it to the others');
    await nextTick();
    assert.deepEqual(responses.map((res, i) => res.socket!.bytesWritten - before[i]!), held, 'every socket sent it by the next tick');
    assert.deepEqual(responses.map((res) => res.socket!.writableLength), held.map(() => 0));

    await until(() => texts.every((t) => t.endsWith('\n\n') && t.length > SSE_PREAMBLE.length));
    for (const text of texts) {
      assert.equal(text.slice(SSE_PREAMBLE.length), `id: ${envelope.id}\nevent: session_update\ndata: ${JSON.stringify(envelope)}\n\n`);
    }
  } finally {
    await close();
  }
});

/** A turn's last frames (its text, usage, `turn_complete`) are published in one pass: one system call each socket, not one per frame. */
test('the frames published in one pass leave each socket in one write, in order', async () => {
  const bus = new EventBus({ ringSize: 16, clock: systemClock });
  const { responses, texts, close } = await streams(bus, 2);
  try {
    // Writable hands a corked socket's chunks to `_writev` at once, and one chunk to `_write`: each call is one system call.
    const writes = responses.map((res) => {
      const socket = res.socket as unknown as { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
      const calls: number[] = [];
      const write = socket._write.bind(socket);
      const writev = socket._writev.bind(socket);
      socket._write = (...a) => (calls.push(1), write(...a));
      socket._writev = (...a) => (calls.push((a[0] as unknown[]).length), writev(...a));
      return calls;
    });
    const ids = [1, 2, 3].map((n) => bus.publish({ type: 'session_update', data: { n } }).id);
    await until(() => texts.every((t) => t.includes(`id: ${ids[2]}\n`) && t.endsWith('\n\n')));
    assert.deepEqual(writes, [[3], [3]], 'one write of three chunks per socket');
    for (const text of texts) assert.deepEqual([...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])), ids);
  } finally {
    await close();
  }
});
