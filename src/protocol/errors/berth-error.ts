import { ERROR_CATALOG, type ErrorCode, type ErrorSpec } from './catalog.js';

const specOf = (code: ErrorCode): ErrorSpec => ERROR_CATALOG[code];

/** Extra context fields carried to the wire next to `error`/`code` (e.g. `sessionId`, `limit`). */
export type ErrorDetails = Record<string, unknown>;

/**
 * An error as a value: a stable `code` from the catalogue, a human message and
 * optional context. Throw it from the core; the faces encode it.
 */
export class BerthError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly hint?: string;

  constructor(code: ErrorCode, message?: string, details: ErrorDetails = {}, hint?: string) {
    super(message ?? specOf(code).message);
    this.name = 'BerthError';
    this.code = code;
    this.details = details;
    this.hint = hint;
  }

  get status(): number {
    return specOf(this.code).status;
  }

  get errorKind(): string | undefined {
    return specOf(this.code).errorKind;
  }

  get retryable(): boolean {
    return specOf(this.code).retryable ?? false;
  }

  get retryAfterSeconds(): number | undefined {
    const d = this.details.retryAfterSeconds;
    return typeof d === 'number' ? d : specOf(this.code).retryAfterSeconds;
  }

  /** The compact shape used inside protocol frames and tool results: `{code, message, retryable, details?}`. */
  toFrameError(): { code: string; message: string; retryable: boolean; details?: ErrorDetails } {
    const out: { code: string; message: string; retryable: boolean; details?: ErrorDetails } = {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
    };
    if (Object.keys(this.details).length > 0) out.details = this.details;
    return out;
  }
}

export function isBerthError(value: unknown): value is BerthError {
  return value instanceof BerthError;
}

/** Wraps any thrown value so callers always hold a BerthError. */
export function asBerthError(value: unknown): BerthError {
  if (value instanceof BerthError) return value;
  const message = value instanceof Error ? value.message : String(value);
  const storage = storageCode(value);
  if (storage) return new BerthError(storage, message, { cause: (value as { code: string }).code });
  return new BerthError('internal_error', message);
}

/**
 * A storage failure is the client's to retry, not an internal error: a full
 * disk (SQLite's SQLITE_FULL, ENOSPC, EDQUOT) answers 507 `storage_full`, a
 * database that is busy, locked or failing I/O answers 503 `storage_unavailable`.
 * Either way the write was refused before anything was acknowledged.
 */
function storageCode(value: unknown): 'storage_full' | 'storage_unavailable' | null {
  const code = (value as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'storage_full';
  if (/^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|READONLY|PROTOCOL|NOLFS)/.test(code)) return 'storage_unavailable';
  return null;
}
