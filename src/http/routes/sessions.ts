import type { Core } from '../../core.js';
import { BerthError } from '../../protocol/errors/index.js';
import { parseApprovalMode } from '../../sessions/approval.js';
import { isSessionId } from '../../sessions/ids.js';
import type { CreateSessionRequest } from '../../sessions/manager.js';
import { withCheckedDisplayName } from '../../sessions/metadata.js';
import { metadataResult, modelSwitchResult } from '../views/settings.js';
import { sessionBody, sessionContext } from '../views/session.js';
import { sessionSummary } from '../views/status.js';
import { clientIdOf } from '../client-id.js';
import { parseBody } from '../contract.js';
import type { HttpModule } from '../module.js';
import type { SessionRewindRequest, SessionRewindResult, SessionSummary } from '../openapi.gen.js';
import { objectBody, param } from '../params.js';

/** `GET /session/{id}/status`, also answered for other nodes without a pass through fastify (http/forwarded-answers.ts). */
export async function sessionStatus(core: Core, sessionId: string): Promise<SessionSummary> {
  return sessionSummary(await core.sessions.open(sessionId));
}

/**
 * OpenAPI tag "Sessions": create/attach, close, heartbeat, metadata, model,
 * status, context (docs/client-api.md §5). Each handler parses, calls the session manager,
 * and encodes; the rules live in src/sessions.
 */
export const sessionsModule: HttpModule = {
  name: 'sessions',
  features: () => [
    'session_create',
    'session_id_override',
    'session_scope_override',
    'session_source_metadata',
    'session_close',
    'client_identity',
    'client_heartbeat',
    'session_metadata',
    'session_set_model',
    'session_approval_mode',
    'session_rewind',
    'session_status',
    'session_context',
    'typed_event_schema',
  ],
  register(app, core: Core) {
    const sessions = core.sessions;

    app.post('/session', async (request) => {
      const clientId = clientIdOf(request);
      const raw = objectBody(request);
      // docs/client-api.md §5.1: a null sessionId equals omission.
      if (raw && typeof raw === 'object' && !Array.isArray(raw) && (raw as Record<string, unknown>).sessionId === null) {
        delete (raw as Record<string, unknown>).sessionId;
      }
      const body = parseBody<CreateSessionRequest>('CreateSessionRequest', raw, {
        sessionScope: 'invalid_session_scope',
        sessionId: 'invalid_session_id',
        worktree: 'invalid_worktree',
        branch: 'invalid_worktree',
        cwd: 'workspace_mismatch',
      });
      const created = await sessions.create(body, clientId);
      return {
        ...sessionBody(created.session, created.attached, created.clientId),
        ...(created.modelApplied !== undefined ? { modelApplied: created.modelApplied } : {}),
      };
    });

    app.delete('/session/:id', async (request, reply) => {
      const clientId = clientIdOf(request);
      const session = await sessions.open(param(request, 'id'));
      sessions.close(session.id, clientId);
      return reply.code(204).send();
    });

    app.post('/session/:id/heartbeat', async (request) => {
      const clientId = clientIdOf(request);
      const session = await sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      const now = core.clock.now();
      if (clientId) session.clients.touch(clientId, now);
      session.touch();
      return { sessionId: session.id, ...(clientId ? { clientId } : {}), lastSeenAt: now };
    });

    app.patch('/session/:id/metadata', async (request) => {
      const id = param(request, 'id');
      // docs/client-api.md §5.6, §13.2: this route checks the path id's shape first.
      if (!isSessionId(id)) throw new BerthError('invalid_session_id', `"${id}" is not a session id`, { sessionId: id });
      const clientId = clientIdOf(request);
      const session = await sessions.open(id);
      session.clients.require(clientId);
      const body = parseBody<{ displayName?: string; pr?: { number: number; url: string; state?: 'open' | 'merged' | 'closed' } }>(
        'SessionMetadataRequest',
        withCheckedDisplayName(objectBody(request)),
        { '*': 'invalid_metadata' },
      );
      return metadataResult(session.id, await session.updateMetadata(body, clientId));
    });

    app.post('/session/:id/model', async (request) => {
      const clientId = clientIdOf(request);
      const session = await sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      const body = parseBody<{ modelId: string }>('SessionModelRequest', objectBody(request), {
        '*': 'invalid_model_id',
      });
      if (body.modelId.trim() === '') throw new BerthError('invalid_model_id');
      return modelSwitchResult(await session.switchModel(body.modelId, clientId));
    });

    // qwen serve's approval-mode route (the qwen Web Shell's menu), outside the 25 operations: docs/client-api.md §5.11.
    app.post('/session/:id/approval-mode', async (request) => {
      const clientId = clientIdOf(request);
      const session = await sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      const body = parseBody<{ mode: string }>('SessionApprovalModeRequest', objectBody(request), { '*': 'invalid_approval_mode' });
      return { sessionId: session.id, ...(await session.setApprovalMode(parseApprovalMode(body.mode), clientId)) };
    });

    // Compaction on demand (docs/client-api.md §5.12): queued like the prompt `/compact`, so it never overlaps a turn.
    app.post('/session/:id/compact', async (request, reply) => {
      const clientId = clientIdOf(request);
      const session = await sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      return reply.code(202).send(await session.submit([{ type: 'text', text: '/compact' }], { ...(clientId ? { clientId } : {}) }));
    });

    // qwen serve's rewind route, outside the 25 operations (docs/client-api.md §5.13).
    app.post('/session/:id/rewind', async (request) => {
      const clientId = clientIdOf(request);
      const session = await sessions.open(param(request, 'id'));
      session.clients.require(clientId);
      const body = parseBody<SessionRewindRequest>('SessionRewindRequest', objectBody(request), { '*': 'invalid_rewind_target' });
      if ((body.promptId === undefined) === (body.checkpointUuid === undefined)) throw new BerthError('invalid_rewind_target');
      const result: SessionRewindResult = await session.rewind(body, clientId);
      return result;
    });

    // Status and context take no X-Qwen-Client-Id in the seed OpenAPI (it lists no 400 for them), though the
    // SDK sends one (docs/client-api.md §5.8, §5.9): the header is accepted and not read. Where docs/client-api.md §2.6 names status among
    // the routes that check the id, the seed wins on the wire (docs/architecture.md).
    app.get('/session/:id/status', async (request) => sessionStatus(core, param(request, 'id')));

    app.get('/session/:id/context', async (request) => {
      return sessionContext(await sessions.open(param(request, 'id')));
    });
  },
};
