import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { parseSseStream } from '@qwen-code/sdk/daemon';
import { systemClock } from '../../src/clock.js';
import { BerthError } from '../../src/protocol/errors/index.js';
import { EventBus, type BusSubscription } from '../../src/events/bus.js';
import { EventBusStats } from '../../src/events/stats.js';
import type { SubscribeOptions } from '../../src/events/types.js';
import { installErrorHandlers } from '../../src/http/errors.js';
import { openEventStream } from '../../src/http/sse.js';
import { silentLogger } from '../../src/log.js';

type DaemonEvent = Awaited<ReturnType<ReturnType<typeof parseSseStream>['next']>>['value'];

/**
 * A tiny fastify app serving `GET /session/:id/events` from in-memory buses,
 * the way the session route will: find the bus (404), then `openEventStream`.
 * It keeps every subscription it opened so tests can look at their backlogs.
 */
export interface SseApp {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly stats: EventBusStats;
  readonly subscriptions: BusSubscription[];
  bus(sessionId: string): EventBus;
  close(): Promise<void>;
}

export async function startSseApp(
  options: { ringSize?: number; heartbeatMs?: number; endGraceMs?: number } = {},
): Promise<SseApp> {
  const stats = new EventBusStats();
  const buses = new Map<string, EventBus>();
  const subscriptions: BusSubscription[] = [];
  const app = Fastify({ forceCloseConnections: true });
  installErrorHandlers(app, silentLogger());
  // Like the security hook's CORS headers: set before the route runs, they must survive the hijack.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('Vary', 'Origin');
    reply.header('content-type', 'text/plain');
  });
  app.get<{ Params: { id: string } }>('/session/:id/events', async (request, reply) => {
    const sessionId = request.params.id;
    const bus = buses.get(sessionId);
    if (!bus) throw new BerthError('session_not_found', `No session with id "${sessionId}"`, { sessionId });
    const recording = {
      subscribe: (o: SubscribeOptions) => {
        const s = bus.subscribe(o);
        subscriptions.push(s);
        return s;
      },
    };
    await openEventStream(request, reply, recording, {
      snapshot: () => ({ sessionId, currentModelId: 'scripted-model', currentApprovalMode: 'default', recordingDegraded: false }),
      heartbeatMs: options.heartbeatMs,
      endGraceMs: options.endGraceMs,
      stats,
    });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    url,
    app,
    stats,
    subscriptions,
    bus(sessionId) {
      let bus = buses.get(sessionId);
      if (!bus) {
        bus = new EventBus({ ringSize: options.ringSize ?? 8000, clock: systemClock, stats });
        buses.set(sessionId, bus);
      }
      return bus;
    },
    async close() {
      for (const bus of buses.values()) bus.close();
      await app.close();
    },
  };
}

/** One SSE stream over fetch, parsed by the official SDK parser. */
export class SdkStream {
  private readonly iterator: AsyncGenerator<DaemonEvent>;
  ended = false;

  constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    this.iterator = parseSseStream(response.body!, abort.signal) as AsyncGenerator<DaemonEvent>;
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<SdkStream> {
    const abort = new AbortController();
    const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
    if (response.status !== 200) throw new Error(`stream refused: ${response.status} ${await response.text()}`);
    return new SdkStream(response, abort);
  }

  /** The next `n` events (fewer only if the stream ends first). */
  async take(n: number): Promise<DaemonEvent[]> {
    const out: DaemonEvent[] = [];
    while (out.length < n && !this.ended) {
      const r = await this.iterator.next();
      if (r.done) this.ended = true;
      else out.push(r.value);
    }
    return out;
  }

  /** Everything until the server ends the stream. */
  async rest(): Promise<DaemonEvent[]> {
    return this.take(Number.POSITIVE_INFINITY);
  }

  close(): void {
    this.abort.abort();
  }
}

/**
 * One SSE stream read as raw text over node:http, for byte-level checks and
 * for clients that stop reading: it reads only while `reading` is on.
 */
export class RawStream {
  text = '';
  ended = false;
  private waiters: Array<() => void> = [];

  private constructor(
    readonly req: ClientRequest,
    readonly res: IncomingMessage,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.text += chunk;
      this.notify();
    });
    res.on('end', () => {
      this.ended = true;
      this.notify();
    });
    res.on('close', () => {
      this.ended = true;
      this.notify();
    });
    // A server that drops the connection mid-response surfaces as 'aborted'; a paused response may not emit
    // 'close' until read, so the request's socket closing is recorded too.
    res.on('error', () => {});
    req.on('close', () => {
      this.ended = true;
      this.notify();
    });
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
    return new Promise((resolve, reject) => {
      const req = request(url, { headers }, (res) => resolve(new RawStream(req, res)));
      req.on('error', reject);
      req.end();
    });
  }

  /** Stop reading the socket: the server's writes back up into the kernel buffers, then into its own queue. */
  stopReading(): void {
    this.res.pause();
  }

  resumeReading(): void {
    this.res.resume();
  }

  /** Resolves once the text read so far satisfies `condition` (or the stream ended). */
  async until(condition: (text: string) => boolean): Promise<void> {
    while (!condition(this.text)) {
      if (this.ended) throw new Error(`stream ended before the condition held; read ${this.text.length} chars`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** Resolves once the server has ended the response. */
  async finished(): Promise<void> {
    while (!this.ended) await new Promise<void>((r) => this.waiters.push(r));
  }

  close(): void {
    this.req.destroy();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** Waits (without a deadline of its own) until a condition holds; the test runner's timeout bounds it. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

export const frameIds = (events: readonly DaemonEvent[]) =>
  events.map((e) => (e.id === undefined ? e.type : e.id));
