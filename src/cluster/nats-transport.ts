import type { NatsConnection } from '@nats-io/transport-node';
import { NatsRequests } from './nats-requests.js';
import { BusRequestError, type BusSubscription, type BusTransport } from './transport.js';

/** NATS's own default `max_payload`, used until the server's INFO says otherwise. */
const NATS_DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/**
 * Connects to the NATS server at `url` (docs/cluster-bus.md). The client package is
 * imported here, on first use, so a daemon without `--bus` loads nothing of it.
 * The client reconnects by itself without end; `reachable()` follows its status.
 */
export async function connectNats(url: string, name: string): Promise<BusTransport> {
  // Bundled (dist/bundle), the CommonJS package becomes a chunk whose only export is its default;
  // under tsx it has named exports too. Either shape gives the same `connect`.
  type NatsModule = typeof import('@nats-io/transport-node');
  const mod = (await import('@nats-io/transport-node')) as NatsModule & { default?: NatsModule };
  const connect = mod.connect ?? mod.default?.connect;
  if (typeof connect !== 'function') throw new Error('@nats-io/transport-node has no connect()');
  // noAsyncTraces: no Error (and stack) made up front for every request in case it times out;
  // a failure becomes a BusRequestError here anyway, whose stack says where.
  const nc = await connect({ servers: url, name, maxReconnectAttempts: -1, noAsyncTraces: true });
  let up = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') up = false;
      else if (status.type === 'reconnect') up = true;
    }
  })().catch(() => undefined);
  return new NatsTransport(nc, () => up && !nc.isClosed());
}

class NatsTransport implements BusTransport {
  private closing: Promise<void> | undefined;
  private readonly requests: NatsRequests;

  constructor(
    private readonly nc: NatsConnection,
    private readonly up: () => boolean,
  ) {
    this.requests = new NatsRequests(nc);
  }

  get maxPayload(): number {
    return this.nc.info?.max_payload ?? NATS_DEFAULT_MAX_PAYLOAD;
  }

  publish(subject: string, data: Uint8Array | string): void {
    // A publish while disconnected is buffered by the client; one after close has nowhere to go.
    if (this.nc.isClosed()) return;
    this.nc.publish(subject, data);
  }

  subscribe(subject: string, onMessage: (data: Uint8Array) => void): BusSubscription {
    const sub = this.nc.subscribe(subject, { callback: (err, msg) => {
      if (err === null) onMessage(msg.data);
    } });
    return { unsubscribe: () => !this.nc.isClosed() && sub.unsubscribe() };
  }

  serve(subject: string, handler: (data: Uint8Array) => Promise<Uint8Array | string>): BusSubscription {
    const sub = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err !== null) return;
        // A handler answers every request itself, failures included; one that throws leaves the asker to its timeout.
        void handler(msg.data).then((answer) => msg.respond(answer), () => undefined);
      },
    });
    return { unsubscribe: () => !this.nc.isClosed() && sub.unsubscribe() };
  }

  request(subject: string, data: Uint8Array | string, timeoutMs: number): Promise<Uint8Array> {
    if (this.nc.isClosed() || !this.up()) return Promise.reject(new BusRequestError('unreachable', 'the bus is not connected'));
    return this.requests.request(subject, data, timeoutMs);
  }

  async flush(): Promise<void> {
    if (this.nc.isClosed() || !this.up()) throw new BusRequestError('unreachable', 'the bus is not connected');
    try {
      await this.nc.flush();
    } catch (err) {
      throw new BusRequestError('unreachable', (err as Error).message);
    }
  }

  reachable(): boolean {
    return this.up();
  }

  close(): Promise<void> {
    // Draining needs the server's answers: while it is away, a stopping daemon just closes.
    this.closing ??= this.nc.isClosed() ? Promise.resolve() : this.up() ? this.nc.drain().catch(() => this.nc.close()) : this.nc.close();
    return this.closing;
  }
}
