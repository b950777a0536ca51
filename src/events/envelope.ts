import { BerthError } from '../protocol/errors/index.js';
import type { EventEnvelope, EventFrame, PublishInput } from './types.js';

/**
 * Building and serializing envelopes (docs/client-api.md §7.3). A published event is checked
 * whole before it gets an id: a type the SSE `event:` line can carry, a plain
 * object payload, and a payload that serializes at all. Anything else is
 * refused with `invalid_event` and consumes no id (§7.4: a gap reads as
 * eviction to the client).
 */

/** Stream-control frames (docs/client-api.md §8.7): subscriber-local, never in the ring, never with an id. */
export const CONTROL_TYPES = {
  replayComplete: 'replay_complete',
  stateResyncRequired: 'state_resync_required',
  sessionSnapshot: 'session_snapshot',
  slowClientWarning: 'slow_client_warning',
  clientEvicted: 'client_evicted',
  streamError: 'stream_error',
} as const;

/** Id-bearing events after which the bus closes and every stream ends (docs/client-api.md §7.7). */
export const TERMINAL_BUS_TYPES: ReadonlySet<string> = new Set(['session_closed', 'session_died']);

// An `event:` line ends at CR or LF, so a type holding one would split the frame.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function refuse(reason: string): never {
  throw new BerthError('invalid_event', `Refused event: ${reason}`);
}

function checkInput(input: PublishInput): void {
  if (!isPlainObject(input)) refuse('not an object');
  if (typeof input.type !== 'string' || input.type.length === 0) refuse('type must be a non-empty string');
  if (CONTROL_CHARACTER.test(input.type)) refuse('type must not contain control characters');
  if (!isPlainObject(input.data)) refuse(`data of ${input.type} must be a plain object`);
  if (input.promptId !== undefined && typeof input.promptId !== 'string') refuse('promptId must be a string');
  if (input.originatorClientId !== undefined && typeof input.originatorClientId !== 'string') {
    refuse('originatorClientId must be a string');
  }
  if (input._meta !== undefined && !isPlainObject(input._meta)) refuse('_meta must be a plain object');
}

/** Serializes once; the UTF-8 length is what every byte cap counts. */
export function frameOf(envelope: EventEnvelope): EventFrame {
  let json: string;
  try {
    json = JSON.stringify(envelope);
  } catch (err) {
    refuse(`${envelope.type} does not serialize to JSON (${(err as Error).message})`);
  }
  return { envelope, json, bytes: Buffer.byteLength(json, 'utf8') };
}

/**
 * The envelope of a published event, in qwen's key order. `_meta.serverTimestamp`
 * is stamped with `now` unless the publisher already set one (docs/client-api.md §7.3).
 */
export function publishedFrame(input: PublishInput, id: number, now: number): EventFrame {
  checkInput(input);
  const earlier = input._meta?.serverTimestamp;
  const serverTimestamp = typeof earlier === 'number' && Number.isFinite(earlier) ? earlier : now;
  const envelope: EventEnvelope = {
    id,
    v: 1,
    type: input.type,
    data: input.data,
    ...(input.promptId !== undefined && { promptId: input.promptId }),
    ...(input.originatorClientId !== undefined && { originatorClientId: input.originatorClientId }),
    _meta: { ...input._meta, serverTimestamp },
  };
  return frameOf(envelope);
}

/** An id-less stream-control frame (docs/client-api.md §8.7), stamped when it is made. */
export function controlFrame(type: string, data: Record<string, unknown>, now: number): EventFrame {
  return frameOf({ v: 1, type, data, _meta: { serverTimestamp: now } });
}
