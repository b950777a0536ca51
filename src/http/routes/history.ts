import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { MAX_TRANSCRIPT_LIMIT } from '../../transcript/limits.js';
import type { Core } from '../../core.js';
import { BerthError } from '../../protocol/errors/index.js';
import { EXPORT_CSP } from '../../export/html.js';
import { parseExportFormat } from '../../export/index.js';
import { parseSessionListQuery } from '../../sessions/list-page.js';
import type { RestoreAction } from '../../sessions/restore.js';
import { parsePageQuery } from '../../transcript/page-query.js';
import { clientIdOf } from '../client-id.js';
import { parseBody } from '../contract.js';
import type { HttpModule } from '../module.js';
import { objectBody, param, query } from '../params.js';
import { sessionListEntry } from '../views/listing.js';
import { restoredSessionBody } from '../views/restored.js';
import { turnIndexBody } from '../views/turn-index.js';

interface RestoreBody {
  cwd?: string;
  approvalMode?: string;
  historyPageSize?: number;
}

/**
 * Reads a load/resume body. The SDK also sends `compactedReplayMode` on load,
 * which the contract schema omits (docs/client-api.md §5.3, §14.8): it is checked here and
 * taken out before the schema sees the body. Resume validates the replay modes
 * and ignores `historyPageSize` as qwen does (docs/client-api.md §5.4). Berth has no nested
 * sub-agent detail, so `summary` and `full` replay the same events.
 */
function restoreBody(raw: unknown, action: RestoreAction): RestoreBody {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new BerthError('invalid_request', 'The body must be a JSON object');
  const body = { ...(raw as Record<string, unknown>) };
  const mode = (name: 'compactedReplayMode' | 'liveReplayMode', code: 'invalid_compacted_replay_mode' | 'invalid_live_replay_mode') => {
    if (body[name] !== undefined && body[name] !== 'full' && body[name] !== 'summary') throw new BerthError(code, undefined, { field: name });
  };
  mode('compactedReplayMode', 'invalid_compacted_replay_mode');
  mode('liveReplayMode', 'invalid_live_replay_mode');
  delete body.compactedReplayMode;
  if (action === 'resume') {
    delete body.liveReplayMode;
    delete body.historyPageSize;
    return parseBody<RestoreBody>('ResumeSessionRequest', body, {});
  }
  const size = body.historyPageSize;
  if (size !== undefined && !(Number.isSafeInteger(size) && (size as number) >= 1 && (size as number) <= MAX_TRANSCRIPT_LIMIT)) {
    throw new BerthError('invalid_transcript_limit', `\`historyPageSize\` must be between 1 and ${MAX_TRANSCRIPT_LIMIT}`, {
      field: 'historyPageSize',
      maxLimit: MAX_TRANSCRIPT_LIMIT,
    });
  }
  return parseBody<RestoreBody>('RestoreSessionRequest', body, { liveReplayMode: 'invalid_live_replay_mode' });
}

/**
 * OpenAPI operations 5, 6, 14 and 16 — load, resume, transcript, export
 * (docs/client-api.md §5.3, §5.4, §10) — plus two reads outside the 25: the turn index that
 * hands out `atRecordId` snapshots (`session_turn_navigation`) and `GET
 * /sessions`, the owner's list of every stored session.
 */
export const historyModule: HttpModule = {
  name: 'history',
  features: () => [
    'session_load',
    'session_resume',
    'unstable_session_resume',
    'session_transcript',
    'session_transcript_pagination',
    'session_turn_navigation',
    'session_export',
  ],
  register(app, core: Core) {
    const restore = (action: RestoreAction) => async (request: FastifyRequest) => {
      const requestedClientId = clientIdOf(request);
      const body = restoreBody(objectBody(request), action);
      const outcome = await core.sessions.restore({
        action,
        sessionId: param(request, 'id'),
        ...body,
        ...(requestedClientId ? { requestedClientId } : {}),
      });
      return restoredSessionBody(outcome);
    };
    app.post('/session/:id/load', restore('load'));
    app.post('/session/:id/resume', restore('resume'));

    app.get('/session/:id/transcript', async (request, reply) => {
      clientIdOf(request);
      const page = await core.transcripts.page(param(request, 'id'), parsePageQuery(query(request)));
      return reply.header('Cache-Control', 'no-store').type('application/json; charset=utf-8').send(page);
    });

    app.get('/session/:id/turn-index', async (request, reply) => {
      clientIdOf(request);
      const q = query(request);
      const index = await core.transcripts.turnIndex(param(request, 'id'), {
        ...(q.snapshot !== undefined ? { snapshot: q.snapshot } : {}),
        ...(q.start !== undefined ? { start: q.start } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
      });
      return reply.header('Cache-Control', 'no-store').send(turnIndexBody(index));
    });

    app.get('/session/:id/export', async (request, reply) => {
      clientIdOf(request);
      const format = parseExportFormat(query(request).format);
      const rendered = await core.transcripts.exportSession(param(request, 'id'), format);
      reply
        .header('Content-Type', rendered.contentType)
        .header('Content-Disposition', `attachment; filename="${rendered.filename}"`)
        .header('Cache-Control', 'no-store');
      if (format === 'html') reply.header('Content-Security-Policy', EXPORT_CSP);
      // Streamed: a large session's export is written a batch of records at a time (src/export/stream.ts).
      return reply.send(Readable.from(rendered.chunks));
    });

    app.get('/sessions', async (request, reply) => {
      const page = await core.sessions.stored(parseSessionListQuery(query(request)));
      return reply.header('Cache-Control', 'no-store').send({
        sessions: page.sessions.map(({ row, live }) => sessionListEntry(row, live, core.workspaces.byId(row.workspaceId))),
        ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
      });
    });
  },
};
