import type { Clock } from '../clock.js';
import { MAX_APP_PROTOCOL_ERRORS } from './limits.js';
import { BerthError, asBerthError } from '../protocol/errors/index.js';
import { decodePayloadAsync, encodePayload } from '../tools/compression.js';
import { isWrapped } from '../protocol/tools/payload-wrapper.js';
import { APP_FRAME_TYPES, envelope, readEnvelope, refusalFrame, uncorrelated, type Envelope } from '../protocol/toolproto/envelope.js';
import { BATCH_RESULT_PAYLOAD, CATALOG_PAYLOAD, ERROR_PAYLOAD, RESULT_PAYLOAD, assertPayload } from '../protocol/toolproto/payloads.js';

/** The one thing a connection needs of its WebSocket. */
export interface FrameSocket {
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** A decoded, validated answer from the application. */
export interface AppReply {
  readonly type: (typeof APP_FRAME_TYPES)[number];
  readonly payload: Record<string, unknown>;
}

export interface RequestOptions {
  readonly sessionId?: string | null;
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
  /** What the request is, for timeout and cancel messages. */
  readonly what: string;
}

interface Pending {
  readonly expects: readonly string[];
  resolve(reply: AppReply): void;
  reject(err: BerthError): void;
}

/** Which answers each request may get (docs/tool-protocol.md); `tool.error` answers any of them. */
const EXPECTED: Record<string, readonly string[]> = {
  'tool.query': ['tool.catalog', 'tool.error'],
  'tool.call': ['tool.result', 'tool.error'],
  'tool.batch': ['tool.batch.result', 'tool.error'],
};

const PAYLOAD_SCHEMAS: Record<string, Record<string, unknown>> = {
  'tool.catalog': CATALOG_PAYLOAD,
  'tool.result': RESULT_PAYLOAD,
  'tool.error': ERROR_PAYLOAD,
  'tool.batch.result': BATCH_RESULT_PAYLOAD,
};

/** RFC 6455 §7.4.1: the endpoint received data it cannot accept under its policy. */
export const CLOSE_POLICY_VIOLATION = 1008;

/**
 * The host's half of one application socket (docs/tool-protocol.md): sends requests with
 * fresh ids and settles each by the answer whose `replyTo` names it. Every
 * incoming frame is read whole — envelope, wrapper, payload shape — before
 * anything acts on it; a frame that fails is answered with a `tool.error`
 * refusal and, if it answered a request in flight, fails that request too.
 * The sender stays connected (one bad frame is not a reason to drop its
 * tools) until it has sent MAX_APP_PROTOCOL_ERRORS bad frames.
 */
export class HostConnection {
  private readonly pending = new Map<string, Pending>();
  private seq = 0;
  private protocolErrors = 0;
  private ended: BerthError | null = null;
  /** Frames waiting behind one whose payload is being inflated; null when none is. */
  private inbox: Promise<void> | null = null;

  constructor(
    private readonly socket: FrameSocket,
    private readonly clock: Clock,
    /** An unsolicited `tool.catalog`: the application announces a change. */
    private readonly onAnnouncement: (payload: Record<string, unknown>) => void,
  ) {}

  get closed(): boolean {
    return this.ended !== null;
  }

  request(type: keyof typeof EXPECTED, payload: unknown, options: RequestOptions): Promise<AppReply> {
    if (this.ended) return Promise.reject(this.ended);
    if (options.signal?.aborted) return Promise.reject(cancelled(options.what, false));
    const id = this.nextId();
    return new Promise<AppReply>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      const onAbort = () => {
        cleanup();
        reject(cancelled(options.what, true));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new BerthError('tool_timeout', `The application did not answer ${options.what} within ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        expects: EXPECTED[type]!,
        resolve: (reply) => (cleanup(), resolve(reply)),
        reject: (err) => (cleanup(), reject(err)),
      });
      try {
        this.send(envelope(type, id, encodePayload(payload), { now: this.clock.now(), sessionId: options.sessionId ?? null }));
      } catch (err) {
        cleanup();
        reject(asBerthError(err));
      }
    });
  }

  /**
   * One frame from the application. Never throws: every fault becomes a refusal frame.
   * Frames are handled in arrival order; a frame with a compressed payload is inflated
   * off the event loop (`decodePayloadAsync`), and the frames after it wait their turn.
   */
  receive(data: string, isBinary: boolean): void {
    if (this.ended) return;
    if (this.inbox) {
      const turn: Promise<void> = this.inbox.then(() => this.receiveNow(data, isBinary));
      this.inbox = turn;
      void turn.then(() => {
        if (this.inbox === turn) this.inbox = null;
      });
      return;
    }
    const later = this.receiveNow(data, isBinary);
    if (later) {
      this.inbox = later;
      void later.then(() => {
        if (this.inbox === later) this.inbox = null;
      });
    }
  }

  /** Handles one frame now, or returns the promise of handling it once its payload is inflated. Never rejects. */
  private receiveNow(data: string, isBinary: boolean): Promise<void> | undefined {
    if (this.ended) return undefined;
    let frame: Envelope;
    try {
      if (isBinary) throw new BerthError('protocol_error', 'Binary frames are not part of the tool protocol; send JSON text');
      frame = readEnvelope(data, APP_FRAME_TYPES);
    } catch (err) {
      this.refuse(asBerthError(err));
      return undefined;
    }
    if (!isWrapped(frame.payload)) {
      this.handle(frame, () => frame.payload ?? {});
      return undefined;
    }
    return decodePayloadAsync(frame.payload).then(
      (payload) => this.handle(frame, () => payload),
      (err: unknown) =>
        this.handle(frame, () => {
          throw err;
        }),
    );
  }

  private handle(frame: Envelope, decoded: () => unknown): void {
    if (this.ended) return;
    const replyTo = frame.replyTo;
    try {
      const payload = this.payloadOf(frame, decoded);
      if (replyTo === undefined) {
        if (frame.type !== 'tool.catalog') {
          throw new BerthError('protocol_error', `A ${frame.type} frame answers a request and needs replyTo`, { replyTo: frame.id });
        }
        this.onAnnouncement(payload);
        return;
      }
      const pending = this.pending.get(replyTo);
      if (!pending) {
        throw new BerthError('protocol_error', `replyTo ${JSON.stringify(replyTo)} names no request in flight`, { replyTo: frame.id });
      }
      if (!pending.expects.includes(frame.type)) {
        throw new BerthError('protocol_error', `A ${frame.type} frame cannot answer this request; expected ${pending.expects.join(' or ')}`, {
          replyTo: frame.id,
        });
      }
      pending.resolve({ type: frame.type as AppReply['type'], payload });
    } catch (err) {
      const be = asBerthError(err);
      if (replyTo !== undefined) this.pending.get(replyTo)?.reject(uncorrelated(be));
      this.refuse(be);
    }
  }

  /** Tells the application something about its catalog that is not an answer (a `tool.error` without `replyTo`). */
  notice(err: BerthError): void {
    if (this.ended) return;
    try {
      this.send(refusalFrame(uncorrelated(err), this.nextId(), this.clock.now()));
    } catch {
      /* the socket is closing */
    }
  }

  /** The socket is gone (or going): every request in flight fails with `reason`. Idempotent. */
  end(reason: BerthError): void {
    if (this.ended) return;
    this.ended = reason;
    for (const pending of [...this.pending.values()]) pending.reject(reason);
  }

  private payloadOf(frame: Envelope, decoded: () => unknown): Record<string, unknown> {
    try {
      // docs/tool-protocol.md: decode the wrapper before interpreting message-specific fields.
      const payload = decoded();
      assertPayload(PAYLOAD_SCHEMAS[frame.type]!, payload, frame.type);
      return payload as Record<string, unknown>;
    } catch (err) {
      const be = asBerthError(err);
      throw new BerthError(be.code, be.message, { ...be.details, replyTo: frame.id });
    }
  }

  private refuse(err: BerthError): void {
    this.protocolErrors += 1;
    try {
      this.send(refusalFrame(err, this.nextId(), this.clock.now()));
    } catch {
      /* the socket is closing; nothing to tell */
    }
    if (this.protocolErrors >= MAX_APP_PROTOCOL_ERRORS) {
      this.socket.close(CLOSE_POLICY_VIOLATION, 'too many malformed frames');
    }
  }

  private send(frame: Envelope): void {
    this.socket.send(JSON.stringify(frame));
  }

  private nextId(): string {
    this.seq += 1;
    return `host_${this.seq}`;
  }
}

function cancelled(what: string, sent: boolean): BerthError {
  return new BerthError(
    'tool_cancelled',
    sent
      ? `${what} was cancelled while the application was running it; it may have taken effect`
      : `${what} was cancelled before it was sent`,
  );
}
