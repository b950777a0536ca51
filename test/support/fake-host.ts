import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

/**
 * B played by hand, for tests of A (`berth connect`): a WebSocket server that
 * records each upgrade request, answers it as the test says (accept, or an
 * HTTP status), and lets the test send any frame and read A's results.
 */

export type UpgradeAnswer = { readonly accept: true; readonly ready?: boolean } | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string };

export interface FakeChannel {
  readonly ws: WebSocket;
  readonly results: any[];
  /** Sends a call frame (defaults filled in) and resolves with A's parsed `result` object. */
  call(fields: Record<string, unknown>): Promise<any>;
  /** Resolves with the first result frame answering call `id` among those from index `from` on. */
  resultFor(id: string, from?: number): Promise<any>;
  readonly closed: Promise<{ code: number; reason: string }>;
}

export class FakeHost {
  readonly upgrades: IncomingMessage[] = [];
  /** What the next upgrades get, first to last; the last one repeats. */
  answers: UpgradeAnswer[] = [{ accept: true }];
  private readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly channels: FakeChannel[] = [];
  private readonly waiters = new Set<() => void>();
  private seq = 0;

  private constructor(readonly defaults: Record<string, unknown>) {
    this.server = createServer((_req, res) => res.writeHead(404).end());
    this.server.on('upgrade', (req: IncomingMessage, socket, head) => {
      this.upgrades.push(req);
      const answer = this.answers[Math.min(this.upgrades.length - 1, this.answers.length - 1)]!;
      if (!('accept' in answer)) {
        const body = answer.body ?? '';
        const headers = Object.entries({ 'content-length': String(Buffer.byteLength(body)), connection: 'close', ...answer.headers }).map(([k, v]) => `${k}: ${v}`);
        socket.end(`HTTP/1.1 ${answer.status} Refused\r\n${headers.join('\r\n')}\r\n\r\n${body}`);
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        if (answer.ready !== false) ws.send(JSON.stringify({ type: 'ready', protocol: 1 }));
        this.channels.push(this.channel(ws));
        for (const w of [...this.waiters]) w();
      });
    });
  }

  static async start(defaults: Record<string, unknown>): Promise<FakeHost> {
    const host = new FakeHost(defaults);
    await new Promise<void>((resolve) => host.server.listen(0, '127.0.0.1', resolve));
    return host;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The `n`-th accepted channel (1-based), once A opened it. */
  nthChannel(n: number): Promise<FakeChannel> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.channels.length >= n) {
          this.waiters.delete(check);
          resolve(this.channels[n - 1]!);
        }
      };
      this.waiters.add(check);
      check();
    });
  }

  async close(): Promise<void> {
    for (const c of this.channels) c.ws.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private channel(ws: WebSocket): FakeChannel {
    const results: any[] = [];
    const waiters = new Set<() => void>();
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('message', (data) => {
      results.push(JSON.parse(data.toString()));
      for (const w of [...waiters]) w();
    });
    const resultFor = (id: string, from = 0) =>
      new Promise<any>((resolve) => {
        const check = () => {
          const found = results.slice(from).find((r) => r.id === id);
          if (found) {
            waiters.delete(check);
            resolve(found);
          }
        };
        waiters.add(check);
        check();
      });
    return {
      ws,
      results,
      resultFor,
      call: async (fields) => {
        const frame: Record<string, unknown> = { type: 'call', protocol: 1, id: `fake-${++this.seq}`, ...this.defaults, ...fields };
        if (typeof frame.args !== 'string') frame.args = JSON.stringify(frame.args ?? {});
        const from = results.length;
        ws.send(JSON.stringify(frame));
        const result = await resultFor(frame.id as string, from);
        return JSON.parse(result.result);
      },
      closed,
    };
  }
}
