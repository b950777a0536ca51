import { BerthError } from '../../protocol/errors/index.js';
import type { TabDeclaration } from '../../messaging/tabs.js';

/**
 * Most sessions one shared module token may speak for. A shared token stands
 * for one external server's tabs (docs/modules.md: one server, every tab of its
 * profile); a hundred is far beyond that, and keeps the body and the store
 * write small.
 */
export const MAX_SHARED_TOKEN_SESSIONS = 100;

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * The body of `PATCH /session/{id}/module`: `delivery` ("prompt" or "inbox")
 * and/or `network` (a boolean), nothing else. Refused whole with
 * `invalid_request` when anything is wrong or nothing is given.
 */
export function readTabSettings(body: unknown): TabDeclaration {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('The body must be a JSON object');
  const { delivery, network, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw invalid(`Unknown member ${unknown[0]}; a tab takes delivery and network`);
  if (delivery !== undefined && delivery !== 'prompt' && delivery !== 'inbox') throw invalid('`delivery` must be "prompt" or "inbox"');
  if (network !== undefined && typeof network !== 'boolean') throw invalid('`network` must be true or false');
  if (delivery === undefined && network === undefined) throw invalid('Give `delivery`, `network` or both');
  return { ...(delivery !== undefined ? { delivery } : {}), ...(network !== undefined ? { network } : {}) };
}

/** The body of `POST /module/token`: `sessionIds`, 1 to 100 distinct session ids. */
export function readSessionIds(body: unknown): string[] {
  const ids = (body as { sessionIds?: unknown } | null)?.sessionIds;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_SHARED_TOKEN_SESSIONS) {
    throw invalid(`\`sessionIds\` must list 1 to ${MAX_SHARED_TOKEN_SESSIONS} session ids`);
  }
  if (Object.keys(body as object).some((k) => k !== 'sessionIds')) throw invalid('The body takes only `sessionIds`');
  for (const id of ids) {
    if (typeof id !== 'string' || !SESSION_ID.test(id)) throw new BerthError('invalid_session_id', `Not a session id: ${JSON.stringify(id)}`);
  }
  const lower = ids.map((id: string) => id.toLowerCase());
  if (new Set(lower).size !== lower.length) throw invalid('`sessionIds` names a session twice');
  return lower;
}

function invalid(message: string): BerthError {
  return new BerthError('invalid_request', message);
}
