import { randomUUID } from 'node:crypto';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { systemClock, type Clock } from '../clock.js';
import { SSE_END_GRACE_MS, SSE_HEARTBEAT_MS } from './limits.js';
import { asBerthError } from '../protocol/errors/index.js';
import { CONTROL_TYPES, controlFrame } from '../events/envelope.js';
import { SSE_HEARTBEAT, SSE_PREAMBLE, encodeFrame, frameBytes } from '../net/sse-encode.js';
import { sseSink } from './sse-socket.js';
import type { EventBusStats } from '../events/stats.js';
import type { SubscribeOptions, Subscription } from '../events/types.js';
import { parseEventStreamRequest, subscribeOptionsOf, type EventStreamRequest, type QueryValues } from './sse-request.js';

export { parseEventStreamRequest, subscribeOptionsOf, type EventStreamRequest };

/** What `openEventStream` needs from a session: something to subscribe to. */
export interface Subscribable {
  subscribe(options: SubscribeOptions): Subscription;
}

export interface OpenEventStreamOptions extends SseStreamOptions {
  /** The `session_snapshot` payload (docs/client-api.md §7.6), asked for only with `?snapshot=1`. */
  readonly snapshot: () => Record<string, unknown>;
  readonly clientId?: string;
}

export interface SseStreamOptions {
  /** Heartbeat comment interval; SSE_HEARTBEAT_MS (15 s, docs/client-api.md §7.3) unless a test shortens it. */
  readonly heartbeatMs?: number;
  /** How long an ended subscription's stream may take to flush before the socket is dropped (SSE_END_GRACE_MS). */
  readonly endGraceMs?: number;
  readonly stats?: EventBusStats;
  /** `X-Qwen-SSE-Stream-Id`; a fresh UUID v4 by default. */
  readonly streamId?: string;
  /** Stamps a `stream_error` frame if reading the subscription fails. */
  readonly clock?: Clock;
}

function isReply(target: FastifyReply | ServerResponse): target is FastifyReply {
  return typeof (target as FastifyReply).hijack === 'function';
}

/** Takes the raw response out of fastify's hands, keeping headers hooks already set (CORS). */
function rawResponse(target: FastifyReply | ServerResponse): { res: ServerResponse; inherited: OutgoingHttpHeaders } {
  if (!isReply(target)) return { res: target, inherited: {} };
  const inherited = target.getHeaders() as OutgoingHttpHeaders;
  target.hijack();
  return { res: target.raw, inherited };
}

const SSE_HEARTBEAT_BYTES = Buffer.from(SSE_HEARTBEAT, 'latin1');

/**
 * Writes one subscription to an HTTP response as an SSE stream (docs/client-api.md §7.2-7.3)
 * and resolves when the stream is over. Headers go out at once, before any
 * event exists (the SDK times the connect by them). Frames are written as the
 * subscription is offered them, inside the publisher's call (the socket sends
 * what one tick wrote in one go, sse-socket.ts); when the socket pushes back, the writer waits for `drain` rather than buffering — the
 * subscriber's bounded queue is the only backlog, and the bus evicts it when it
 * overflows. A client that disconnects
 * closes its subscription; a terminal frame ends the response.
 */
export function streamSubscription(
  target: FastifyReply | ServerResponse,
  subscription: Subscription,
  options: SseStreamOptions = {},
): Promise<void> {
  const { res, inherited } = rawResponse(target);
  const clock = options.clock ?? systemClock;
  // setHeader, not a writeHead object: names are case-insensitive there, so ours replace inherited ones.
  for (const [name, value] of Object.entries(inherited)) if (value !== undefined) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/event-stream');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Qwen-Event-Epoch', subscription.epoch);
  res.setHeader('X-Qwen-SSE-Stream-Id', options.streamId ?? randomUUID());
  res.writeHead(200);
  res.flushHeaders();
  res.write(SSE_PREAMBLE);
  options.stats?.streamOpened();
  const sink = sseSink(res);

  let gone = false;
  let finished = false;
  let reading = false;
  let cancelDrainWait: (() => void) | undefined;
  let endGrace: NodeJS.Timeout | undefined;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));

  const heartbeat = setInterval(() => {
    // While the socket is full a heartbeat would only add to its buffer; the client is not reading anyway.
    if (!gone && !cancelDrainWait) sink.write(SSE_HEARTBEAT_BYTES);
  }, options.heartbeatMs ?? SSE_HEARTBEAT_MS);

  const finish = () => {
    if (finished) return;
    finished = true;
    clearInterval(heartbeat);
    clearTimeout(endGrace);
    cancelDrainWait?.();
    subscription.close();
    options.stats?.streamClosed();
    if (!gone) res.end();
    resolveDone();
  };

  // Runs inside the publisher's call (onReadable) for every frame: no promise, no queueing while the
  // socket takes it. When the socket pushes back, the writer waits for `drain` rather than buffering;
  // the subscriber's bounded queue is the only backlog, and the bus evicts it when it overflows.
  const readOn = () => {
    if (reading || finished || cancelDrainWait) return;
    reading = true;
    try {
      for (;;) {
        if (gone) return finish();
        const frame = subscription.takeFrame();
        if (frame === undefined) return;
        if (frame === null) return finish();
        if (!sink.write(frameBytes(frame))) {
          cancelDrainWait = sink.whenDrained(() => {
            cancelDrainWait = undefined;
            readOn();
          });
          return;
        }
      }
    } catch (err) {
      // docs/client-api.md §7.5: a failure while streaming ends this stream with an id-less stream_error.
      if (!gone) {
        const error = asBerthError(err);
        const frame = controlFrame(CONTROL_TYPES.streamError, { error: error.message, errorKind: error.errorKind ?? error.code }, clock.now());
        sink.write(Buffer.from(encodeFrame(frame), 'utf8'));
      }
      finish();
    } finally {
      reading = false;
    }
  };

  const onClose = () => {
    gone = true;
    finish();
  };
  res.on('close', onClose);
  // A client that left while its request was being routed closed the response before this listener
  // existed: 'close' will not come again, and every write now fails without a 'drain' to wait for.
  if (res.destroyed || !res.socket || res.socket.destroyed) onClose();
  // An ended subscription has nothing more to give; if the client will not take what is left, let it go.
  void subscription.detached.then(() => {
    if (gone || finished) return;
    endGrace = setTimeout(() => res.destroy(), options.endGraceMs ?? SSE_END_GRACE_MS);
    endGrace.unref();
  });

  if (!finished) {
    subscription.onReadable(readOn);
    readOn();
  }
  return done;
}

/**
 * `GET /session/{id}/events` after the route has found its session: parse the
 * request (400 `invalid_max_queued` is thrown here, before any stream opens),
 * subscribe (429 `subscriber_limit_exceeded` likewise), then stream until the
 * subscription or the client ends. Both refusals reach the error handler as
 * ordinary JSON errors because nothing has been written yet.
 */
export async function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  bus: Subscribable,
  options: OpenEventStreamOptions,
): Promise<void> {
  const parsed = parseEventStreamRequest(request.headers, (request.query ?? {}) as QueryValues);
  const subscription = bus.subscribe(subscribeOptionsOf(parsed, options.snapshot, options.clientId));
  await streamSubscription(reply, subscription, options);
}

/**
 * `openEventStream` for a subscription that takes a round trip to open: a session
 * another node runs, followed over the cluster bus (docs/cluster-bus.md). Its
 * refusals (`owner_unreachable`, the owner's own) come before any byte is written.
 */
export async function openFollowedStream(
  request: FastifyRequest,
  reply: FastifyReply,
  follow: (options: SubscribeOptions) => Promise<Subscription>,
  options: OpenEventStreamOptions,
): Promise<void> {
  const parsed = parseEventStreamRequest(request.headers, (request.query ?? {}) as QueryValues);
  const subscription = await follow(subscribeOptionsOf(parsed, options.snapshot, options.clientId));
  await streamSubscription(reply, subscription, options);
}
