import type { IncomingHttpHeaders } from 'node:http';
import { MAX_MAX_QUEUED, MIN_MAX_QUEUED } from '../events/limits.js';
import { BerthError } from '../protocol/errors/index.js';
import type { SubscribeOptions } from '../events/types.js';

/**
 * The request side of `GET /session/{id}/events` (docs/client-api.md §7.1). Only `maxQueued`
 * can refuse the request (400 `invalid_max_queued`, before any stream opens);
 * every other malformed input is ignored, because a client that cannot be
 * understood must still get a working live stream.
 */
export const CONNECT_REASONS = [
  'initial',
  'resume',
  'prompt_restart',
  'stream_end',
  'transport_error',
  'state_resync',
  'unknown',
] as const;
export type ConnectReason = (typeof CONNECT_REASONS)[number];

export interface EventStreamRequest {
  /** A valid `Last-Event-ID` cursor; absent means live-only. */
  readonly lastEventId?: number;
  /** `X-Qwen-Event-Epoch`, read only together with a cursor and only when well formed. */
  readonly epoch?: string;
  readonly maxQueued?: number;
  /** `?snapshot=1`: inject a `session_snapshot` frame (§7.6). */
  readonly snapshot: boolean;
  /** Telemetry only. */
  readonly connectReason?: ConnectReason;
  /** Telemetry only; lower-cased when it is a UUID, else absent. */
  readonly previousStreamId?: string;
}

/** Query values as fastify (or `Object.fromEntries(searchParams)`) hands them over. */
export type QueryValues = Record<string, string | string[] | undefined>;

const DECIMAL = /^[0-9]+$/;
const EPOCH_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
// The SDK's own check for stream ids (docs/client-api.md §7.2).
const STREAM_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function parseCursor(raw: string | undefined): number | undefined {
  if (raw === undefined || !DECIMAL.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

function parseMaxQueued(query: QueryValues): number | undefined {
  if (!Object.hasOwn(query, 'maxQueued') || query.maxQueued === undefined) return undefined;
  const raw = single(query.maxQueued);
  if (raw === undefined || !DECIMAL.test(raw)) {
    throw new BerthError('invalid_max_queued', '`maxQueued` must be a decimal integer');
  }
  const n = Number(raw);
  if (n < MIN_MAX_QUEUED || n > MAX_MAX_QUEUED) {
    throw new BerthError('invalid_max_queued', `\`maxQueued\` must be in [${MIN_MAX_QUEUED}, ${MAX_MAX_QUEUED}]`);
  }
  return n;
}

/** Reads the stream request; throws only `invalid_max_queued`. */
export function parseEventStreamRequest(headers: IncomingHttpHeaders, query: QueryValues = {}): EventStreamRequest {
  const maxQueued = parseMaxQueued(query);
  const lastEventId = parseCursor(single(headers['last-event-id']));
  const epochHeader = single(headers['x-qwen-event-epoch']);
  const epoch = lastEventId !== undefined && epochHeader !== undefined && EPOCH_PATTERN.test(epochHeader)
    ? epochHeader
    : undefined;
  const reason = single(query.connectReason);
  const connectReason =
    reason === undefined ? undefined : (CONNECT_REASONS as readonly string[]).includes(reason)
      ? (reason as ConnectReason)
      : 'unknown';
  const previous = single(query.previousStreamId);
  return {
    ...(lastEventId !== undefined && { lastEventId }),
    ...(epoch !== undefined && { epoch }),
    ...(maxQueued !== undefined && { maxQueued }),
    snapshot: single(query.snapshot) === '1',
    ...(connectReason !== undefined && { connectReason }),
    ...(previous !== undefined && STREAM_ID_PATTERN.test(previous) && { previousStreamId: previous.toLowerCase() }),
  };
}

/**
 * The bus options for a parsed request. `snapshot` is asked for only when the
 * client wants one, so a session builds its snapshot payload lazily.
 */
export function subscribeOptionsOf(
  request: EventStreamRequest,
  snapshot: () => Record<string, unknown>,
  clientId?: string,
): SubscribeOptions {
  return {
    ...(request.lastEventId !== undefined && { lastEventId: request.lastEventId }),
    ...(request.epoch !== undefined && { epoch: request.epoch }),
    ...(request.maxQueued !== undefined && { maxQueued: request.maxQueued }),
    ...(request.snapshot && { snapshot: snapshot() }),
    ...(clientId !== undefined && { clientId }),
  };
}
