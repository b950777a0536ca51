import { BerthError } from '../protocol/errors/index.js';
import { HANDED_OVER } from './recovery.js';

/**
 * What a request reaching a session that is closing is told. A closed session answers like
 * an unknown one (404 `session_not_found`), except one handed over to another node (a drain,
 * or its lease lost: docs/cluster-leases.md). That session is not gone: a retry reaches its
 * next owner, so the answer is 503 `session_on_other_node`, retryable. A prompt whose row was
 * being written when the drain began must not tell its client the session vanished.
 */
export function closedSessionError(sessionId: string, reason: string | null): BerthError {
  if (reason === HANDED_OVER) return new BerthError('session_on_other_node', `Session ${sessionId} was handed over to another node; retry`, { sessionId });
  return new BerthError('session_not_found', `No session with id "${sessionId}"`, { sessionId });
}
