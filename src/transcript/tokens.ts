import { createHmac, timingSafeEqual } from 'node:crypto';
import { MAX_TRANSCRIPT_TOKEN_CHARS } from './limits.js';

/**
 * Transcript cursors and snapshots (docs/client-api.md §10.1): opaque to clients, signed with
 * the home's secret so a tampered or foreign token is refused whole.
 *
 * A token freezes the transcript as it was when the first page was cut: the
 * first `size` records of the session, fingerprinted by the record id stored at
 * position `size`. The transcript is append-only, so later appends do not
 * disturb it (they are simply not seen); the token goes stale only if storage
 * "moved" under it — the record at `size` is gone or holds another record
 * (records deleted or rewritten, the session's history replaced).
 */
export interface FrozenTranscript {
  readonly sessionId: string;
  /** Records 1..size belong to the snapshot. */
  readonly size: number;
  /** The record id at seq `size` ('' when size is 0). */
  readonly fingerprint: string;
}

export interface CursorToken extends FrozenTranscript {
  readonly kind: 'cursor';
  readonly direction: 'forward' | 'backward';
  /** Forward: the next seq to read. Backward: the seq the next page ends before. */
  readonly position: number;
}

export interface SnapshotToken extends FrozenTranscript {
  readonly kind: 'snapshot';
}

export type TranscriptToken = CursorToken | SnapshotToken;

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export class TranscriptTokens {
  constructor(private readonly secret: Buffer) {}

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest();
  }

  sign(token: TranscriptToken): string {
    const payload =
      token.kind === 'cursor'
        ? { v: 1, k: 'c', s: token.sessionId, n: token.size, f: token.fingerprint, d: token.direction === 'forward' ? 'f' : 'b', p: token.position }
        : { v: 1, k: 's', s: token.sessionId, n: token.size, f: token.fingerprint };
    const text = JSON.stringify(payload);
    return `${b64(text)}.${b64(this.mac(text))}`;
  }

  /** The token's content, or undefined when it is malformed, too long or not signed by this home. */
  verify(token: string): TranscriptToken | undefined {
    if (token.length === 0 || token.length > MAX_TRANSCRIPT_TOKEN_CHARS) return undefined;
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.')) return undefined;
    const text = Buffer.from(token.slice(0, dot), 'base64url').toString('utf8');
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = this.mac(text);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let p: Record<string, unknown>;
    try {
      p = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    const size = p.n;
    if (p.v !== 1 || typeof p.s !== 'string' || typeof p.f !== 'string' || !Number.isSafeInteger(size) || (size as number) < 0) {
      return undefined;
    }
    const frozen = { sessionId: p.s, size: size as number, fingerprint: p.f };
    if (p.k === 's') return { kind: 'snapshot', ...frozen };
    if (p.k !== 'c' || (p.d !== 'f' && p.d !== 'b') || !Number.isSafeInteger(p.p) || (p.p as number) < 0) return undefined;
    return { kind: 'cursor', ...frozen, direction: p.d === 'f' ? 'forward' : 'backward', position: p.p as number };
  }
}
