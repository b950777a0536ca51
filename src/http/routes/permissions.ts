import type { Core } from '../../core.js';
import { voteAnywhere, voteInSession, type Vote } from '../../sessions/votes.js';
import { clientIdOf } from '../client-id.js';
import { parseBody } from '../contract.js';
import type { HttpModule } from '../module.js';
import { objectBody, param } from '../params.js';

function parseVote(body: unknown): Vote {
  return parseBody<Vote>('PermissionResponse', body, { '*': 'invalid_permission_response', answers: 'invalid_permission_response' });
}

/** OpenAPI tag "Permissions": the per-session vote route and the legacy primary one (docs/client-api.md §9.3, §9.4). */
export const permissionsModule: HttpModule = {
  name: 'permissions',
  features: () => ['session_permission_vote', 'permission_vote', 'permission_mediation'],
  register(app, core: Core) {
    const sessions = core.sessions;

    app.post('/session/:id/permission/:requestId', async (request, reply) => {
      const vote = parseVote(objectBody(request));
      const clientId = clientIdOf(request);
      const session = await sessions.open(param(request, 'id'));
      voteInSession(session, param(request, 'requestId'), vote, clientId);
      return reply.code(200).send({});
    });

    app.post('/permission/:requestId', async (request, reply) => {
      const vote = parseVote(objectBody(request));
      voteAnywhere(sessions, param(request, 'requestId'), vote, clientIdOf(request));
      return reply.code(200).send({});
    });
  },
};
