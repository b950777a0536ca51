import { BerthError } from '../protocol/errors/index.js';
import type { Outcome } from './interactions.js';
import type { SessionManager } from './manager.js';
import type { Session } from './session.js';

export interface Vote {
  readonly outcome: Outcome;
  readonly answers?: Record<string, string>;
}

/**
 * One vote on a permission request or question (docs/client-api.md §9.3), first responder
 * wins. Checks in qwen's order: the request must be pending (else 404, and a
 * late vote on a recently resolved request publishes `permission_already_resolved`),
 * the client id registered, the option offered.
 */
export function voteInSession(session: Session, requestId: string, vote: Vote, clientId: string | undefined): void {
  if (!session.interactions.has(requestId)) {
    session.interactions.vote(requestId, { outcome: vote.outcome });
    throw new BerthError('permission_request_not_found', 'No pending permission request for session', {
      sessionId: session.id,
      requestId,
    });
  }
  cast(session, requestId, vote, clientId);
}

/** The legacy route (docs/client-api.md §9.4): the request is looked up among every live session. */
export function voteAnywhere(sessions: SessionManager, requestId: string, vote: Vote, clientId: string | undefined): void {
  const session = sessions.findByRequest(requestId);
  if (!session) {
    for (const s of sessions.list()) s.interactions.vote(requestId, { outcome: vote.outcome });
    throw new BerthError('permission_request_not_found', 'No pending permission request', { requestId });
  }
  cast(session, requestId, vote, clientId);
}

function cast(session: Session, requestId: string, vote: Vote, clientId: string | undefined): void {
  session.clients.require(clientId);
  session.interactions.vote(requestId, {
    outcome: vote.outcome,
    ...(vote.answers ? { answers: vote.answers } : {}),
    ...(clientId ? { voterClientId: clientId } : {}),
  });
}
