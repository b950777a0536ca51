import type { Core } from '../../core.js';
import { BerthError } from '../../errors/index.js';
import type { Outcome } from '../../sessions/interactions.js';
import type { Session } from '../../sessions/session.js';
import { clientIdOf } from '../client-id.js';
import { parseBody } from '../contract.js';
import type { HttpModule } from '../module.js';
import { objectBody, param } from '../params.js';

interface Vote {
  outcome: Outcome;
  answers?: Record<string, string>;
}

/** Applies a vote from a registered (or anonymous) client on a pending request; 200 `{}`. */
function castVote(session: Session, requestId: string, vote: Vote, clientId: string | undefined): void {
  session.clients.require(clientId);
  session.interactions.vote(requestId, {
    outcome: vote.outcome,
    ...(vote.answers ? { answers: vote.answers } : {}),
    ...(clientId ? { voterClientId: clientId } : {}),
  });
}

function parseVote(body: unknown): Vote {
  return parseBody<Vote>('PermissionResponse', body, { '*': 'invalid_permission_response', answers: 'invalid_permission_response' });
}

/** OpenAPI tag "Permissions": the per-session vote route and the legacy primary one (spec §9.3, §9.4). */
export const permissionsModule: HttpModule = {
  name: 'permissions',
  features: () => ['session_permission_vote', 'permission_vote', 'permission_mediation'],
  register(app, core: Core) {
    const sessions = core.sessions;

    app.post('/session/:id/permission/:requestId', async (request, reply) => {
      const vote = parseVote(objectBody(request));
      const clientId = clientIdOf(request);
      const session = sessions.get(param(request, 'id'));
      const requestId = param(request, 'requestId');
      if (!session.interactions.has(requestId)) {
        session.interactions.vote(requestId, { outcome: vote.outcome }); // publishes permission_already_resolved when known
        throw new BerthError('permission_request_not_found', 'No pending permission request for session', {
          sessionId: session.id,
          requestId,
        });
      }
      castVote(session, requestId, vote, clientId);
      return reply.code(200).send({});
    });

    app.post('/permission/:requestId', async (request, reply) => {
      const vote = parseVote(objectBody(request));
      const clientId = clientIdOf(request);
      const requestId = param(request, 'requestId');
      const session = sessions.findByRequest(requestId);
      if (!session) {
        for (const s of sessions.list()) s.interactions.vote(requestId, { outcome: vote.outcome });
        throw new BerthError('permission_request_not_found', 'No pending permission request', { requestId });
      }
      castVote(session, requestId, vote, clientId);
      return reply.code(200).send({});
    });
  },
};
