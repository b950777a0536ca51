import { BerthError } from '../protocol/errors/index.js';
import { DEFAULT_SESSION_LIST_PAGE, MAX_SESSION_LIST_PAGE } from './limits.js';

/** One `GET /sessions` page request, parsed (docs/client-api.md §5.11). */
export interface SessionListQuery {
  /** The store position the page starts after; 0 for the first page. */
  readonly after: number;
  readonly limit: number;
}

const CURSOR_PREFIX = 's1.';

/**
 * The cursor of the page after the session at `position`. Opaque to clients;
 * it names a position in the store's own order, so sessions created while a
 * client pages appear on a later page and none is skipped or repeated.
 */
export function sessionListCursor(position: number): string {
  return CURSOR_PREFIX + Buffer.from(String(position)).toString('base64url');
}

function positionOf(cursor: string): number {
  const decoded = cursor.startsWith(CURSOR_PREFIX) ? Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString() : '';
  const n = /^[1-9]\d{0,15}$/.test(decoded) ? Number(decoded) : NaN;
  if (!Number.isSafeInteger(n)) throw new BerthError('invalid_session_list_cursor', undefined, { field: 'cursor' });
  return n;
}

/** Reads `limit` and `cursor`; absent means the first page of the default size. */
export function parseSessionListQuery(q: Readonly<Record<string, string | undefined>>): SessionListQuery {
  let limit = DEFAULT_SESSION_LIST_PAGE;
  if (q.limit !== undefined) {
    limit = /^\d{1,7}$/.test(q.limit) ? Number(q.limit) : NaN;
    if (!(limit >= 1 && limit <= MAX_SESSION_LIST_PAGE)) {
      throw new BerthError('invalid_session_list_limit', undefined, { field: 'limit', maxLimit: MAX_SESSION_LIST_PAGE });
    }
  }
  return { after: q.cursor === undefined ? 0 : positionOf(q.cursor), limit };
}
