import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between a WebSocket client (A) and server (B) that reads the
 * WebSocket frames passing through, so a test can lose one frame and cut the
 * connection at an exact point of the protocol (issue 5 fault tests). It never
 * changes a frame; like any reverse proxy it names B in the upgrade's Host
 * header (B accepts only its own Host on loopback).
 */

/** One whole WebSocket frame as it crossed the proxy. */
export interface SeenFrame {
  readonly direction: 'toServer' | 'toClient';
  readonly opcode: number;
  /** The payload, unmasked. */
  readonly payload: Buffer;
  /** The frame's text for text frames. */
  readonly text: string | undefined;
}

/** What to do with a frame: pass it on, pass it on and then cut, or lose it and cut. */
export type FrameVerdict = 'forward' | 'forward-then-cut' | 'drop-and-cut';

export class ChannelProxy {
  private server: Server | undefined;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  /** Decides each frame's fate; forwards everything by default. */
  judge: (frame: SeenFrame) => FrameVerdict = () => 'forward';
  cuts = 0;
  connections = 0;

  private constructor(private readonly target: { host: string; port: number }) {}

  static async start(targetUrl: string): Promise<ChannelProxy> {
    const u = new URL(targetUrl);
    const proxy = new ChannelProxy({ host: u.hostname, port: Number(u.port) });
    proxy.server = createServer((client) => proxy.accept(client));
    await new Promise<void>((resolve) => proxy.server!.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The URL A dials instead of B's. */
  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** Cuts every connection now (both sockets destroyed, as a network failure would). */
  cutAll(): void {
    for (const pair of [...this.pairs]) this.cut(pair);
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private accept(client: Socket): void {
    this.connections += 1;
    const upstream = connect(this.target.port, this.target.host);
    const pair = { client, upstream };
    this.pairs.add(pair);
    const end = () => this.cut(pair, false);
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
    this.pipe(pair, client, upstream, 'toServer');
    this.pipe(pair, upstream, client, 'toClient');
  }

  private cut(pair: { client: Socket; upstream: Socket }, counted = true): void {
    if (!this.pairs.delete(pair)) return;
    if (counted) this.cuts += 1;
    pair.client.destroy();
    pair.upstream.destroy();
  }

  /** Forwards the HTTP head as is, then frame by frame, asking `judge` about each. */
  private pipe(pair: { client: Socket; upstream: Socket }, from: Socket, to: Socket, direction: SeenFrame['direction']): void {
    let buffered = Buffer.alloc(0);
    let inHead = true;
    from.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (inHead) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        let head = buffered.subarray(0, end + 4).toString('latin1');
        if (direction === 'toServer') head = head.replace(/^host:[^\r\n]*/im, `Host: ${this.target.host}:${this.target.port}`);
        to.write(Buffer.from(head, 'latin1'));
        buffered = buffered.subarray(end + 4);
        inHead = false;
      }
      for (;;) {
        const frame = readFrame(buffered);
        if (!frame) return;
        const bytes = buffered.subarray(0, frame.length);
        buffered = buffered.subarray(frame.length);
        const verdict = this.judge({ direction, opcode: frame.opcode, payload: frame.payload, text: frame.opcode === 1 ? frame.payload.toString('utf8') : undefined });
        if (verdict === 'drop-and-cut') return this.cut(pair);
        to.write(bytes);
        if (verdict === 'forward-then-cut') {
          // Let the bytes leave before the sockets go: end the writer, then cut.
          to.end(() => this.cut(pair));
          return;
        }
      }
    });
  }
}

/** Parses one frame at the start of `buf` (RFC 6455 §5.2); undefined until it is complete. */
function readFrame(buf: Buffer): { length: number; opcode: number; payload: Buffer } | undefined {
  if (buf.length < 2) return undefined;
  const opcode = buf[0]! & 0x0f;
  const masked = (buf[1]! & 0x80) !== 0;
  let len = buf[1]! & 0x7f;
  let at = 2;
  if (len === 126) {
    if (buf.length < 4) return undefined;
    len = buf.readUInt16BE(2);
    at = 4;
  } else if (len === 127) {
    if (buf.length < 10) return undefined;
    len = Number(buf.readBigUInt64BE(2));
    at = 10;
  }
  const maskAt = at;
  if (masked) at += 4;
  if (buf.length < at + len) return undefined;
  const payload = Buffer.from(buf.subarray(at, at + len));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ buf[maskAt + (i % 4)]!;
  return { length: at + len, opcode, payload };
}

/** A small seeded PRNG (mulberry32), so a random fault run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
