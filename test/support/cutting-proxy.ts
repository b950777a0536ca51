import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A plain-HTTP forward proxy for a browser (`--proxy-server`), so a test can cut every open
 * connection at once — what a flaky network does to a long event stream. Requests keep their
 * Host header, so the daemon sees exactly what the browser sent.
 */
export class CuttingProxy {
  private server: Server | undefined;
  private readonly open = new Set<{ req: IncomingMessage; res: ServerResponse }>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.forward(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const target = new URL(req.url ?? '/');
    const pair = { req, res };
    this.open.add(pair);
    const upstream = request(
      { hostname: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => {
      upstream.destroy();
      this.open.delete(pair);
    });
    req.pipe(upstream);
  }

  /** Drops every connection in flight; later requests go through again. */
  cutAll(): number {
    const n = this.open.size;
    for (const { res } of this.open) res.destroy();
    return n;
  }

  async close(): Promise<void> {
    this.cutAll();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
