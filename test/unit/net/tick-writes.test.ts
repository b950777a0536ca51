import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { writesOfOneTick } from '../../../src/net/tick-writes.js';

/** A socket stand-in that records each write it is asked to make: one entry per write(2) a net.Socket would make. */
function recordingSocket(): { socket: Writable; writes: string[][] } {
  const writes: string[][] = [];
  const socket = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      done();
    },
  });
  return { socket, writes };
}

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe('writesOfOneTick', () => {
  test('frames sent in one tick leave in one write, in order', async () => {
    const { socket, writes } = recordingSocket();
    const hold = writesOfOneTick(socket);
    for (const frame of ['a', 'b', 'c']) {
      hold();
      socket.write(frame);
    }
    assert.deepEqual(writes, [], 'held until the tick ends');
    await nextTick();
    assert.deepEqual(writes, [['a', 'b', 'c']]);
  });

  test('a lone frame leaves at the end of its tick, and the next tick is held afresh', async () => {
    const { socket, writes } = recordingSocket();
    const hold = writesOfOneTick(socket);
    hold();
    socket.write('a');
    await nextTick();
    assert.deepEqual(writes, [['a']]);
    hold();
    socket.write('b');
    hold();
    socket.write('c');
    await nextTick();
    assert.deepEqual(writes, [['a'], ['b', 'c']]);
  });

  test('a destroyed socket is not held', () => {
    const { socket } = recordingSocket();
    socket.destroy();
    writesOfOneTick(socket)();
    assert.equal(socket.writableCorked, 0);
  });
});
