import { DEFAULT_TRANSCRIPT_LIMIT, MAX_TRANSCRIPT_ANCHOR_CHARS, MAX_TRANSCRIPT_LIMIT } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';

/**
 * The modes of `GET /session/{id}/transcript` (docs/client-api.md §10.1), parsed whole from
 * the query before any storage is read: a first page (forward or backward), a
 * continuation `cursor`, a backward page `beforeRecordId` (optionally pinned to
 * a `snapshot`), or the forward page `atRecordId` a `snapshot` (required).
 */
export type PageMode =
  | { readonly kind: 'first'; readonly direction: 'forward' | 'backward' }
  | { readonly kind: 'cursor'; readonly token: string }
  | { readonly kind: 'before'; readonly recordId: string; readonly snapshot?: string }
  | { readonly kind: 'at'; readonly recordId: string; readonly snapshot: string };

export interface PageQuery {
  readonly limit: number;
  readonly mode: PageMode;
}

const combination = () => new BerthError('invalid_transcript_cursor', 'Invalid transcript cursor and anchor combination');

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_TRANSCRIPT_LIMIT;
  const n = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= MAX_TRANSCRIPT_LIMIT)) {
    throw new BerthError('invalid_transcript_limit', `\`limit\` must be between 1 and ${MAX_TRANSCRIPT_LIMIT}`, {
      maxLimit: MAX_TRANSCRIPT_LIMIT,
    });
  }
  return n;
}

function parseAnchor(name: string, raw: string): string {
  if (raw === '' || raw.length > MAX_TRANSCRIPT_ANCHOR_CHARS) {
    throw new BerthError('invalid_turn_anchor', `\`${name}\` must be a record id of 1 to ${MAX_TRANSCRIPT_ANCHOR_CHARS} characters`);
  }
  return raw;
}

/** Query strings as the face hands them over (a repeated key keeps its first value). */
export function parsePageQuery(q: Readonly<Record<string, string | undefined>>): PageQuery {
  const mode = q.compactedReplayMode;
  if (mode !== undefined && mode !== 'full' && mode !== 'summary') throw new BerthError('invalid_compacted_replay_mode');
  const limit = parseLimit(q.limit);
  const { cursor, direction, beforeRecordId: before, atRecordId: at, snapshot } = q;
  // docs/client-api.md §10.1 exclusivity, checked before any token is decoded.
  if (direction !== undefined && (cursor !== undefined || before !== undefined || at !== undefined || snapshot !== undefined)) {
    throw combination();
  }
  if (cursor !== undefined && (before !== undefined || at !== undefined || snapshot !== undefined)) throw combination();
  if (at !== undefined && (before !== undefined || snapshot === undefined)) throw combination();
  if (snapshot !== undefined && before === undefined && at === undefined) throw combination();

  if (direction !== undefined) {
    if (direction !== 'backward') throw new BerthError('invalid_transcript_cursor', '`direction` must be `backward`');
    return { limit, mode: { kind: 'first', direction: 'backward' } };
  }
  if (cursor !== undefined) {
    if (cursor === '') throw new BerthError('invalid_transcript_cursor', 'Invalid transcript cursor');
    return { limit, mode: { kind: 'cursor', token: cursor } };
  }
  if (at !== undefined) return { limit, mode: { kind: 'at', recordId: parseAnchor('atRecordId', at), snapshot: snapshot! } };
  if (before !== undefined) {
    return {
      limit,
      mode: { kind: 'before', recordId: parseAnchor('beforeRecordId', before), ...(snapshot !== undefined ? { snapshot } : {}) },
    };
  }
  return { limit, mode: { kind: 'first', direction: 'forward' } };
}
