import { MAX_DISPLAY_NAME_UNITS, MAX_SESSION_PRS } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';

/** A pull request bound to a session (OpenAPI `SessionPr`). */
export interface SessionPr {
  readonly number: number;
  readonly url: string;
  readonly state?: 'open' | 'merged' | 'closed';
  readonly issues?: readonly { number: number; url: string; state?: string }[];
}


const CONTROL = /[\u0000-\u001F\u007F]/;

/**
 * docs/client-api.md §5.6: truncate to 256 UTF-16 code units first (not surrogate-aware, as
 * the contract says), then refuse empty, whitespace-only or control-character names.
 */
export function normalizeDisplayName(value: unknown): string {
  if (typeof value !== 'string') {
    throw new BerthError('invalid_metadata', 'Invalid session metadata: displayName must be a string', {
      field: 'displayName',
    });
  }
  const cut = value.length > MAX_DISPLAY_NAME_UNITS ? value.slice(0, MAX_DISPLAY_NAME_UNITS) : value;
  if (cut.trim() === '') {
    throw new BerthError('invalid_metadata', 'Invalid session metadata: displayName must not be empty', {
      field: 'displayName',
    });
  }
  if (CONTROL.test(cut)) {
    throw new BerthError('invalid_metadata', 'Invalid session metadata: displayName must not contain control characters', {
      field: 'displayName',
    });
  }
  return cut;
}

/**
 * A `PATCH /metadata` body whose `displayName` is already cut and checked, so
 * the contract schema (which forbids control characters) judges the cut value,
 * not the characters past unit 256 that docs/client-api.md §5.6 says are dropped first.
 */
export function withCheckedDisplayName(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const b = body as Record<string, unknown>;
  if (b.displayName === undefined) return body;
  return { ...b, displayName: normalizeDisplayName(b.displayName) };
}

/** Binds a PR: the same number replaces its earlier entry; the list stays bounded. */
export function bindPr(prs: readonly SessionPr[], pr: SessionPr): SessionPr[] {
  const rest = prs.filter((p) => p.number !== pr.number);
  const entry: SessionPr = { number: pr.number, url: pr.url, ...(pr.state ? { state: pr.state } : {}) };
  return [...rest, entry].slice(-MAX_SESSION_PRS);
}
