import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodePayload } from '../../src/tools/compression.js';
import { TOOL_SUBPROTOCOL } from '../../src/protocol/toolproto/subprotocol.js';
import type { Frame } from './raw-app.js';

/**
 * A raw `ws` server playing the host, for SDK tests that must see the exact
 * frames the application sends (and send it frames the daemon never would).
 */
export class RawHost {
  readonly received: Frame[] = [];
  /** Raw text of every frame, to check what travelled compressed. */
  readonly texts: string[] = [];
  /** Headers of the last upgrade request (how the app authenticated). */
  lastUpgrade: { authorization?: string; protocols?: string } = {};
  private socket: WebSocket | undefined;
  private connected: Array<() => void> = [];
  private waiters: Array<{ match: (f: Frame) => boolean; resolve: (f: Frame) => void }> = [];
  private seq = 0;

  private constructor(
    private readonly server: Server,
    private readonly wss: WebSocketServer,
    readonly url: string,
  ) {
    wss.on('connection', (ws, request) => {
      this.lastUpgrade = { authorization: request.headers.authorization, protocols: request.headers['sec-websocket-protocol'] };
      this.socket = ws;
      ws.on('message', (data) => {
        const text = data.toString();
        this.texts.push(text);
        const frame = JSON.parse(text) as Frame;
        frame.payload = decodePayload(frame.payload);
        this.received.push(frame);
        const waiter = this.waiters.find((w) => w.match(frame));
        if (waiter) {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          waiter.resolve(frame);
        }
      });
      for (const resolve of this.connected.splice(0)) resolve();
    });
  }

  static async start(): Promise<RawHost> {
    const server = createServer();
    const wss = new WebSocketServer({ server, handleProtocols: (p) => (p.has(TOOL_SUBPROTOCOL) ? TOOL_SUBPROTOCOL : false) });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    return new RawHost(server, wss, `http://127.0.0.1:${port}`);
  }

  whenConnected(): Promise<void> {
    return this.socket ? Promise.resolve() : new Promise((resolve) => this.connected.push(resolve));
  }

  /** Sends a request and resolves with the application's answer to it (its payload decoded). */
  async request(type: string, payload: unknown, extra: Record<string, unknown> = {}): Promise<Frame> {
    const id = `h${++this.seq}`;
    const answer = this.next((f) => f.replyTo === id);
    this.send({ type, id, sentAt: new Date().toISOString(), capability: 'tool.exec', payload, ...extra });
    return answer;
  }

  next(match: (f: Frame) => boolean): Promise<Frame> {
    const early = this.received.find(match);
    if (early) return Promise.resolve(early);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  send(frame: Record<string, unknown> | string): void {
    this.socket!.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
