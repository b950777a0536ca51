import type { FastifyRequest } from 'fastify';
import type { Core } from '../../core.js';
import { BerthError } from '../../protocol/errors/index.js';
import { MAX_SESSION_LIST_PAGE } from '../../sessions/limits.js';
import { parseSessionListQuery } from '../../sessions/list-page.js';
import type { SessionRow } from '../../sessions/records.js';
import type { Workspace } from '../../workspace/types.js';
import { query } from '../params.js';
import type { HttpModule } from '../module.js';
import { cwdOf, workspaceOf } from './workspace-param.js';

/** qwen serve's page bounds for the workspace session list: a size over the cap is clamped, not refused. */
export const DEFAULT_SESSION_PAGE_SIZE = 20;
export const MAX_SESSION_PAGE_SIZE = 100;

/** One row as qwen serve's workspace session list shapes it (sessionId, workspaceCwd, times, displayName, live counts). */
export interface WorkspaceSessionSummary {
  readonly sessionId: string;
  readonly workspaceCwd: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly displayName?: string;
  readonly clientCount: number;
  readonly hasActivePrompt: boolean;
  readonly sourceType?: string;
  readonly sourceId?: string;
  readonly isArchived: false;
  readonly state: 'live' | 'persisted';
}

/** qwen's spelling of a session source type. */
const SOURCE_TYPE = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * qwen's source filter: an exact `sourceType` (and `sourceId` when given), where `default` also
 * means "created without a source" — the Web Shell's sidebar asks for `sourceType=default`.
 */
function sourceMatches(row: SessionRow, sourceType: string | undefined, sourceId: string | undefined): boolean {
  if (sourceType === undefined) return true;
  const typeMatches = row.sourceType === sourceType || (sourceType === 'default' && row.sourceType === null);
  return typeMatches && (sourceId === undefined || row.sourceId === sourceId);
}

/** Every stored session, read page by page in the store's order. */
export async function allStored(core: Core): Promise<{ readonly row: SessionRow; readonly live: boolean }[]> {
  const out: { row: SessionRow; live: boolean }[] = [];
  let query = { after: 0, limit: MAX_SESSION_LIST_PAGE };
  for (;;) {
    const page = await core.sessions.stored(query);
    out.push(...page.sessions);
    if (page.nextCursor === undefined || page.sessions.length === 0) return out;
    query = parseSessionListQuery({ cursor: page.nextCursor, limit: String(MAX_SESSION_LIST_PAGE) });
  }
}

function pageSize(raw: string | undefined): number {
  if (raw === undefined || !/^[+-]?\d+$/.test(raw.trim())) return DEFAULT_SESSION_PAGE_SIZE;
  const n = Number.parseInt(raw.trim(), 10);
  return Math.min(MAX_SESSION_PAGE_SIZE, Math.max(1, n));
}

function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  if (!/^\d{1,9}$/.test(cursor)) throw new BerthError('invalid_cursor');
  return Number(cursor);
}

/**
 * The Web Shell's session sidebar and overview (`GET /workspace/{cwd}/sessions` and
 * `GET /workspaces/{cwd}/sessions`, polled every few seconds): the workspace's stored and live
 * sessions, newest activity first, paged by an opaque offset cursor, filtered by source as qwen
 * filters. Berth archives nothing, so `archiveState=archived` is an empty page.
 */
export async function listWorkspaceSessions(core: Core, ws: Workspace, request: FastifyRequest) {
  const q = query(request);
  if (q.archiveState !== undefined && q.archiveState !== 'active' && q.archiveState !== 'archived') {
    throw new BerthError('invalid_archive_state');
  }
  const size = pageSize(q.size);
  const offset = offsetOf(q.cursor);
  if (q.sourceType !== undefined && !SOURCE_TYPE.test(q.sourceType)) throw new BerthError('invalid_session_source');
  if (q.sourceId !== undefined && q.sourceType === undefined) throw new BerthError('invalid_session_source', '`sourceId` needs `sourceType`');
  const rows =
    q.archiveState === 'archived'
      ? []
      : (await allStored(core))
          .filter(({ row }) => row.workspaceId === ws.id && sourceMatches(row, q.sourceType, q.sourceId))
          .sort((a, b) => b.row.updatedAt - a.row.updatedAt || a.row.id.localeCompare(b.row.id));
  const page = rows.slice(offset, offset + size).map(({ row, live }): WorkspaceSessionSummary => {
    const session = live ? core.sessions.find(row.id) : undefined;
    return {
      sessionId: row.id,
      workspaceCwd: cwdOf(ws),
      createdAt: new Date(row.createdAt).toISOString(),
      updatedAt: new Date(row.updatedAt).toISOString(),
      ...(row.displayName !== null ? { displayName: row.displayName } : {}),
      ...(row.sourceType !== null ? { sourceType: row.sourceType } : {}),
      ...(row.sourceId !== null ? { sourceId: row.sourceId } : {}),
      clientCount: session?.clients.count ?? 0,
      hasActivePrompt: session?.hasActivePrompt ?? false,
      isArchived: false,
      state: live ? 'live' : 'persisted',
    };
  });
  const next = offset + page.length;
  return { sessions: page, ...(next < rows.length ? { nextCursor: String(next) } : {}) };
}

/** qwen serve's `GET /workspace/{cwd}/session-info`: the workspace's stored sessions counted, with the live ones. */
async function sessionInfo(core: Core, ws: Workspace) {
  const rows = (await allStored(core)).filter(({ row }) => row.workspaceId === ws.id);
  const live = rows.filter((r) => r.live).length;
  return { active: rows.length, archived: 0, total: rows.length, live, expensive: true, cost: 'store_scan' };
}

export const webShellSessionListModule: HttpModule = {
  name: 'webshell-session-list',
  features: () => [],
  register(app, core: Core) {
    app.get('/workspace/:cwd/sessions', async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return listWorkspaceSessions(core, workspaceOf(core, request, 'cwd'), request);
    });
    app.get('/workspaces/:cwd/sessions', async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return listWorkspaceSessions(core, workspaceOf(core, request, 'cwd'), request);
    });

    // How many sessions the workspace has (qwen's count panel): Berth archives nothing, and it reads
    // every stored row as the list does, so it too says the answer is costly to poll.
    app.get('/workspace/:cwd/session-info', async (request) => sessionInfo(core, workspaceOf(core, request, 'cwd')));
    app.get('/workspaces/:cwd/session-info', async (request) => sessionInfo(core, workspaceOf(core, request, 'cwd')));

    // The sidebar's live badges: the workspace's live sessions. Berth keeps no catalogue version
    // (the list is polled whole), so it stays at 0 and never asks the client to drop its pages.
    app.get('/workspaces/:cwd/sessions/live-state', async (request, reply) => {
      const ws = workspaceOf(core, request, 'cwd');
      reply.header('Cache-Control', 'no-store');
      const sessions = core.sessions
        .list()
        .filter((session) => session.workspace.id === ws.id)
        .map((session) => {
          const pending = session.interactions.pending();
          return {
            sessionId: session.id,
            clientCount: session.clients.count,
            hasActivePrompt: session.hasActivePrompt,
            hasRunningBackgroundTasks: false,
            isWaitingForPermission: pending.some((p) => p.kind === 'permission'),
            isWaitingForUserQuestion: pending.some((p) => p.kind === 'user_question'),
          };
        });
      return { v: 1, catalogVersion: { generation: 0, revision: 0 }, sessions };
    });
  },
};
