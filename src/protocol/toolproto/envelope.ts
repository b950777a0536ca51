import { MAX_FRAME_ID_CHARS } from '../limits.js';
import { BerthError } from '../errors/index.js';
import { assertMatches } from '../tools/arguments.js';

/**
 * docs/tool-protocol.md (Envelope): every message is one JSON object with `type`, `id`,
 * `replyTo`, `sessionId`, `sentAt`, `capability` and `payload`. Shared by the
 * daemon (host) and the `berth/app` SDK, so it stays free of Node modules.
 */
export interface Envelope {
  readonly type: string;
  readonly id: string;
  readonly replyTo?: string;
  readonly sessionId?: string;
  readonly sentAt?: string;
  readonly capability?: string;
  readonly payload?: unknown;
}

/** What the host sends (docs/tool-protocol.md: the host asks). */
export const HOST_FRAME_TYPES = ['tool.query', 'tool.call', 'tool.batch'] as const;
/** What the application answers; a `tool.catalog` without `replyTo` announces a change (Berth's choice). */
export const APP_FRAME_TYPES = ['tool.catalog', 'tool.result', 'tool.error', 'tool.batch.result'] as const;
/** The capability the seed's examples carry on every frame. */
export const TOOL_CAPABILITY = 'tool.exec';

const ID = { type: 'string', minLength: 1, maxLength: MAX_FRAME_ID_CHARS };

/** Closed: a frame with members the seed does not define is refused whole. */
const ENVELOPE_SCHEMA = {
  type: 'object',
  required: ['type', 'id'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', minLength: 1, maxLength: 64 },
    id: ID,
    replyTo: ID,
    sessionId: ID,
    sentAt: { type: 'string', maxLength: 64 },
    capability: { type: 'string', maxLength: 64 },
    payload: { type: 'object' },
  },
};

/**
 * Reads one text frame: JSON, an envelope of the closed shape above, and a
 * `type` this side accepts. Refused whole with `protocol_error`; the error's
 * `details.replyTo` names the frame's id when it could be read, so the
 * refusal can be correlated. The payload is returned as sent (maybe wrapped).
 */
export function readEnvelope(text: string, accepted: readonly string[]): Envelope {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BerthError('protocol_error', 'The frame is not JSON');
  }
  const id = typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : undefined;
  const correlate = id !== undefined && id.length > 0 && id.length <= MAX_FRAME_ID_CHARS ? { replyTo: id } : {};
  try {
    assertMatches(ENVELOPE_SCHEMA, value, 'protocol_error', 'the envelope');
  } catch (err) {
    const be = err as BerthError;
    throw new BerthError('protocol_error', `Malformed envelope: ${be.message}`, { ...be.details, ...correlate });
  }
  const envelope = value as Envelope;
  if (!accepted.includes(envelope.type)) {
    throw new BerthError('protocol_error', `Unexpected frame type ${JSON.stringify(envelope.type)}; expected one of ${accepted.join(', ')}`, correlate);
  }
  return envelope;
}

export interface EnvelopeFields {
  readonly replyTo?: string;
  readonly sessionId?: string | null;
  /** Milliseconds since epoch, stamped as `sentAt`. */
  readonly now: number;
}

export function envelope(type: string, id: string, payload: unknown, fields: EnvelopeFields): Envelope {
  return {
    type,
    id,
    ...(fields.replyTo !== undefined ? { replyTo: fields.replyTo } : {}),
    ...(fields.sessionId ? { sessionId: fields.sessionId } : {}),
    sentAt: new Date(fields.now).toISOString(),
    capability: TOOL_CAPABILITY,
    payload,
  };
}

/** The refusal frame both sides send for a frame they cannot act on: a `tool.error` naming it when possible. */
export function refusalFrame(err: BerthError, id: string, now: number): Envelope {
  const replyTo = typeof err.details.replyTo === 'string' ? err.details.replyTo : undefined;
  return envelope('tool.error', id, uncorrelated(err).toFrameError(), { now, ...(replyTo !== undefined ? { replyTo } : {}) });
}

/** The refusal without the frame id it was correlated with (which belongs on the envelope, not in details). */
export function uncorrelated(err: BerthError): BerthError {
  if (!Object.hasOwn(err.details, 'replyTo')) return err;
  const { replyTo: _frameId, ...details } = err.details;
  return new BerthError(err.code, err.message, details, err.hint);
}
