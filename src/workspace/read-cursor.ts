import { createHash } from 'node:crypto';
import { CURSOR_FINGERPRINT_BYTES, MAX_CURSOR_CHARS } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';

/**
 * The opaque resume token of `GET /file` paging (docs/client-api.md §11.2): base64url JSON
 * naming the byte offset where the next page starts and the identity of the
 * file it was cut from.
 *
 * `dev`/`ino` catch a replaced file and `size` a truncated one, as in qwen.
 * Berth adds `fp`, a digest of the bytes just before `off`, so an in-place
 * rewrite that keeps or grows the size is caught too, at the cost of one tiny
 * read (appends leave those bytes alone and stay valid). The cursor is not
 * signed: the path is confined again on every request, so a forged cursor can
 * only move the offset inside a file the caller may read anyway.
 */
export interface ReadCursor {
  /** Byte offset in the file where the next page starts (always a line start). */
  readonly off: number;
  /** File size when the cursor was issued. */
  readonly size: number;
  /** Device and inode as decimal strings. */
  readonly dev: string;
  readonly ino: string;
  /** First 16 hex digits of SHA-256 over the CURSOR_FINGERPRINT_BYTES bytes before `off`. */
  readonly fp: string;
}

const VERSION = 1;

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const FINGERPRINT = /^[0-9a-f]{16}$/;
const HINT = 'pass a cursor returned by a previous read';

export function fingerprint(bytesBeforeOffset: Uint8Array): string {
  return createHash('sha256').update(bytesBeforeOffset).digest('hex').slice(0, 16);
}

export function encodeCursor(cursor: ReadCursor): string {
  const { off, size, dev, ino, fp } = cursor;
  return Buffer.from(JSON.stringify({ v: VERSION, off, size, dev, ino, fp }), 'utf8').toString('base64url');
}

function malformed(): BerthError {
  return new BerthError('parse_error', 'cursor is not a valid read cursor', {}, HINT);
}

/** Decodes a client's cursor; anything but the exact shape Berth issues is `parse_error`. */
export function decodeCursor(text: string): ReadCursor {
  if (text.length === 0 || text.length > MAX_CURSOR_CHARS || !BASE64URL.test(text)) throw malformed();
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw malformed();
  const r = raw as Record<string, unknown>;
  const keys = Object.keys(r);
  const shapeOk =
    keys.length === 6 &&
    r.v === VERSION &&
    Number.isSafeInteger(r.off) &&
    Number.isSafeInteger(r.size) &&
    (r.off as number) > 0 &&
    (r.off as number) <= (r.size as number) &&
    typeof r.dev === 'string' &&
    DECIMAL.test(r.dev) &&
    typeof r.ino === 'string' &&
    DECIMAL.test(r.ino) &&
    typeof r.fp === 'string' &&
    FINGERPRINT.test(r.fp);
  if (!shapeOk) throw malformed();
  return { off: r.off as number, size: r.size as number, dev: r.dev as string, ino: r.ino as string, fp: r.fp as string };
}

/** The cursor was cut from another file, or from this one before it shrank: 409 (docs/client-api.md §11.2). */
export function assertSameFile(cursor: ReadCursor, stat: { dev: number; ino: number; size: number }, rel: string): void {
  if (String(stat.dev) !== cursor.dev || String(stat.ino) !== cursor.ino || stat.size < cursor.size) {
    throw staleCursor(rel);
  }
}

export function staleCursor(rel: string): BerthError {
  return new BerthError(
    'hash_mismatch',
    `the cursor no longer matches the file it was issued for: ${rel}`,
    {},
    're-read the file from the beginning to get a fresh cursor',
  );
}

/** Where the fingerprint of an offset starts. */
export const fingerprintStart = (off: number): number => Math.max(0, off - CURSOR_FINGERPRINT_BYTES);
