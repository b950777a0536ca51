// A bare WebSocket between this process (in B's place) and a child process (in the owner's place,
// bench/lib/wire-echo.mjs): the channel's frames without the channel. Each round trip sends a text
// of one length and waits for the child's answer of another, as a gateway call and its result do.
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { startDaemonProcess } from './daemon-process.mjs';

const ECHO = join(fileURLToPath(new URL('.', import.meta.url)), 'wire-echo.mjs');

/**
 * Starts the child and waits for it to dial in. Returns `{pid, roundTrip(sendBytes, replyBytes), close()}`;
 * `roundTrip` resolves with the length of the answer.
 */
export async function startWire() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await once(server, 'listening');
  const connected = once(server, 'connection');
  let child;
  try {
    child = await startDaemonProcess({
      name: 'wire echo',
      command: process.execPath,
      args: [ECHO, `ws://127.0.0.1:${server.address().port}`],
      ready: /wire ready/,
    });
  } catch (err) {
    server.close();
    throw err;
  }
  const [socket] = await connected;
  // Answers come back in the order their messages left: the oldest waiter takes each.
  const waiting = [];
  socket.on('message', (data) => waiting.shift()?.(data.length));
  const payloads = new Map();
  const payload = (sendBytes, replyBytes) => {
    const key = `${sendBytes}:${replyBytes}`;
    let text = payloads.get(key);
    if (text === undefined) {
      const head = `${replyBytes}:`;
      text = head + 'x'.repeat(Math.max(0, sendBytes - head.length));
      payloads.set(key, text);
    }
    return text;
  };
  return {
    pid: child.pid,
    roundTrip(sendBytes, replyBytes) {
      return new Promise((resolve) => {
        waiting.push(resolve);
        socket.send(payload(sendBytes, replyBytes));
      });
    },
    async close() {
      socket.close();
      await child.stop();
      server.close();
    },
  };
}
