import type { ServerResponse } from 'node:http';
import { writesOfOneTick } from '../net/tick-writes.js';

/** Where an SSE stream's bytes go once its headers are out. */
export interface SseSink {
  /** Writes bytes whole; false once the socket holds more than it should (wait with `whenDrained`). */
  write(bytes: Buffer): boolean;
  /** Calls `listener` once the socket has room again; returns a function that cancels the wait. */
  whenDrained(listener: () => void): () => void;
}

const CRLF = Buffer.from('\r\n', 'latin1');

/** Chunked forms already built, keyed by the bytes they frame (a frame's bytes are shared by all its subscribers). */
const chunked = new WeakMap<Buffer, Buffer>();

/** `bytes` as one HTTP/1.1 chunk (size line, bytes, CRLF), built once however many sockets it goes to. */
export function asChunk(bytes: Buffer): Buffer {
  let chunk = chunked.get(bytes);
  if (chunk === undefined) {
    chunk = Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`, 'latin1'), bytes, CRLF]);
    chunked.set(bytes, chunk);
  }
  return chunk;
}

function drainOf(emitter: ServerResponse | NonNullable<ServerResponse['socket']>, listener: () => void): () => void {
  emitter.once('drain', listener);
  return () => emitter.off('drain', listener);
}

/**
 * The cheapest safe way to write an SSE stream's frames. `res.write` frames every call as a
 * chunk of its own (size, CRLF, data, CRLF: four writes into a corked socket, a writev when it
 * uncorks on the next tick), which is most of what one event's fan-out to 64 subscribers costs
 * besides the system calls. When the response has handed all it holds to its socket, the frame
 * goes to the socket directly as one ready-made chunk, shared by every subscriber, and the
 * chunks of one pass go in one system call (src/net/tick-writes.ts). The socket is the same one
 * `res.write` would fill, so its back-pressure (`false`, then `drain`) is unchanged, and
 * `res.end()` still closes the chunked body after it.
 * Anything else (bytes held in the response, no socket) goes through `res.write` as before.
 */
export function sseSink(res: ServerResponse): SseSink {
  const socket = res.socket;
  const direct = socket !== null && res.headersSent && !res.writableEnded && res.writableLength === socket.writableLength;
  if (!direct) return { write: (bytes) => res.write(bytes), whenDrained: (listener) => drainOf(res, listener) };
  const frame = res.chunkedEncoding ? asChunk : (bytes: Buffer) => bytes;
  const holdWrites = writesOfOneTick(socket);
  const write = (bytes: Buffer) => {
    holdWrites();
    return socket.write(frame(bytes));
  };
  return { write, whenDrained: (listener) => drainOf(socket, listener) };
}
