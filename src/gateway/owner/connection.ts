import type { IncomingMessage } from 'node:http';
import WebSocket, { type RawData } from 'ws';
import { GATEWAY_HANDSHAKE_TIMEOUT_MS, GATEWAY_IDLE_TIMEOUT_MS, GATEWAY_RECONNECT_BASE_MS, GATEWAY_RECONNECT_MAX_MS } from '../limits.js';
import type { Logger } from '../../log.js';
import { CLOSE, parseHostFrame, RefusedCall, UnreadableFrame, type CallFrame } from '../../protocol/gateway/frames.js';
import { reconnectDelay } from './backoff.js';
import { writesOfOneTick } from '../../net/tick-writes.js';

/** Frames A sends are text frames, handed to the socket as their UTF-8 bytes. */
const TEXT_FRAME = { binary: false } as const;

/** Upgrade answers that will not change by trying again: a bad or misplaced token, no such workspace, a redirect. */
const FATAL_STATUSES = new Set([400, 401, 403, 404]);
/** An upgrade refusal body is read up to this much, for the message… */
const MAX_REFUSAL_BODY_BYTES = 4096;
/** …and for at most this long. */
const REFUSAL_READ_MS = 2_000;

export interface OwnerConnectionOptions {
  /** The channel URL (ws: or wss:), already checked to carry no credentials. */
  readonly url: string;
  readonly token: string;
  readonly maxFrameBytes: number;
  /** Answers one call with its `result` frame (the UTF-8 bytes of its text); never throws. Runs on even if the channel drops, so its receipt completes. */
  readonly onCall: (frame: CallFrame) => Promise<Buffer>;
  /** The `result` frame (UTF-8 bytes of its text) for a call frame refused before it could be read whole, but with an id to answer. */
  readonly onRefused: (refused: RefusedCall) => Buffer;
  /** One line for the owner (connected, refused, retrying…). */
  readonly status: (line: string) => void;
  readonly log: Logger;
  readonly random?: () => number;
  readonly reconnect?: { readonly baseMs: number; readonly maxMs: number };
}

/** Why the owner stopped dialling for good. */
export class ChannelRefused extends Error {
  override name = 'ChannelRefused';
}

/**
 * A's dial-out loop (docs/gateway.md: the owner opens the WebSocket). One channel at
 * a time; after it closes, dial again with exponential backoff and jitter
 * (reset once a channel reached `ready`). Never follows a redirect, sends no
 * credential but the channel token (in the Authorization header, never the
 * URL), and gives up only on an answer that retrying cannot change.
 *
 * Results of calls that finish while no channel is up are dropped: B sends
 * those calls again with the same ids, and the receipts answer them.
 */
export class OwnerConnection {
  private stopped = false;
  private socket: WebSocket | null = null;
  private wake: (() => void) | null = null;
  private readonly random: () => number;
  /** Resolves when the loop ends: null after stop(), the refusal when the host refused for good. */
  readonly finished: Promise<ChannelRefused | null>;

  constructor(private readonly options: OwnerConnectionOptions) {
    this.random = options.random ?? Math.random;
    this.finished = this.loop();
  }

  /** Closes the channel and stops dialling; idempotent. */
  stop(): Promise<ChannelRefused | null> {
    this.stopped = true;
    this.socket?.close(CLOSE.normal, 'owner disconnecting');
    this.wake?.();
    return this.finished;
  }

  private async loop(): Promise<ChannelRefused | null> {
    const backoff = this.options.reconnect ?? { baseMs: GATEWAY_RECONNECT_BASE_MS, maxMs: GATEWAY_RECONNECT_MAX_MS };
    let failures = 0;
    while (!this.stopped) {
      const ended = await this.dialOnce();
      if (ended.refused) return ended.refused;
      if (this.stopped) break;
      failures = ended.reachedReady ? 0 : failures + 1;
      const delay = reconnectDelay(failures, backoff.baseMs, backoff.maxMs, this.random);
      this.options.status(`channel closed (${ended.why}); dialling again in ${(delay / 1000).toFixed(1)} s`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    return null;
  }

  /** One channel from dial to close. */
  private dialOnce(): Promise<{ reachedReady: boolean; why: string; refused?: ChannelRefused }> {
    const { options } = this;
    return new Promise((resolve) => {
      const ws = new WebSocket(options.url, {
        headers: { authorization: `Bearer ${options.token}` },
        followRedirects: false,
        maxPayload: options.maxFrameBytes,
        perMessageDeflate: false,
        handshakeTimeout: GATEWAY_HANDSHAKE_TIMEOUT_MS,
      });
      this.socket = ws;
      let holdWrites = () => {};
      ws.once('upgrade', (res: IncomingMessage) => (holdWrites = writesOfOneTick(res.socket)));
      // A result frame goes out only on this very channel, if it is still open; otherwise B will ask again.
      const send = (frame: Buffer) => {
        if (ws.readyState !== WebSocket.OPEN) return;
        holdWrites();
        ws.send(frame, TEXT_FRAME, () => undefined);
      };
      let reachedReady = false;
      let refused: ChannelRefused | undefined;
      let why = 'connection failed';
      let refusal: string | undefined;
      let idle: NodeJS.Timeout | undefined;
      // Every frame restarts the same timer (refresh), rather than a new timer per frame.
      const heard = () => {
        if (idle) idle.refresh();
        else (idle = setTimeout(() => ws.terminate(), GATEWAY_IDLE_TIMEOUT_MS)).unref();
      };
      const close = (code: number, reason: string) => ws.close(code, reason.slice(0, 120));

      ws.on('unexpected-response', (_req, res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        const giveUp = setTimeout(() => ws.terminate(), REFUSAL_READ_MS);
        void readBody(res).then((body) => {
          clearTimeout(giveUp);
          const message = refusalMessage(status, body);
          why = refusal = message;
          if (status >= 300 && status < 400) {
            refused = new ChannelRefused(`the host answered with a redirect (${status}); redirects are never followed`);
          } else if (FATAL_STATUSES.has(status)) {
            refused = new ChannelRefused(`the host refused the channel: ${message}`);
          }
          ws.terminate();
        });
      });
      ws.on('open', () => {
        heard();
        options.status('connected; waiting for ready');
      });
      ws.on('ping', heard);
      ws.on('message', (data: RawData, isBinary: boolean) => {
        heard();
        if (isBinary) return close(CLOSE.unsupportedData, 'channel frames are JSON text');
        let frame;
        try {
          frame = parseHostFrame(data.toString());
        } catch (err) {
          if (err instanceof RefusedCall && reachedReady) return send(options.onRefused(err));
          const code = err instanceof UnreadableFrame ? CLOSE.invalidPayload : CLOSE.protocolError;
          options.log.warn({ err: (err as Error).message }, 'gateway frame refused');
          return close(code, (err as Error).message);
        }
        if (frame.type === 'ready') {
          if (reachedReady) return close(CLOSE.protocolError, 'ready sent twice');
          reachedReady = true;
          options.status('channel ready');
          return;
        }
        if (!reachedReady) return close(CLOSE.protocolError, 'a call came before ready');
        void options.onCall(frame).then(send);
      });
      ws.on('error', (err) => {
        if (!refusal) why = err.message;
        options.log.debug({ err: err.message }, 'gateway channel error');
      });
      ws.once('close', (code: number, reason: Buffer) => {
        clearTimeout(idle);
        if (this.socket === ws) this.socket = null;
        if (!refusal && (code !== 1006 || reachedReady)) why = `${code}${reason.length > 0 ? ` ${reason.toString()}` : ''}`;
        resolve({ reachedReady, why, ...(refused ? { refused } : {}) });
      });
    });
  }
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (body.length < MAX_REFUSAL_BODY_BYTES) body += chunk;
    });
    res.on('end', () => resolve(body));
    res.on('error', () => resolve(body));
    res.on('close', () => resolve(body));
  });
}

/** `429 channel_limit_exceeded: …` from the client API's error body, or just the status. */
function refusalMessage(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; error?: unknown };
    if (typeof parsed.code === 'string') return `${status} ${parsed.code}: ${String(parsed.error ?? '')}`;
  } catch {
    /* not an error body */
  }
  return `HTTP ${status}`;
}
