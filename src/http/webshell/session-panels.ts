import type { Core } from '../../core.js';
import { splitClientModelId } from '../../agents/models/model-id.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Session } from '../../sessions/session.js';
import { clientIdOf } from '../client-id.js';
import type { HttpModule } from '../module.js';
import { param, query } from '../params.js';
import type { FastifyRequest } from 'fastify';
import { workspaceCwdOf } from '../views/session.js';

/** qwen serve's bound on an agent id in `rootAgentId`. */
const MAX_AGENT_ID = 500;

/** The session a panel reads, with the client id checked as on every session route. */
async function sessionOf(core: Core, request: FastifyRequest): Promise<Session> {
  const session = await core.sessions.open(param(request, 'id'));
  session.clients.require(clientIdOf(request));
  return session;
}

/** The window of the session's current model: what its last request reported, else what its service knows. */
function contextWindow(core: Core, session: Session): number {
  const reported = session.usage.context?.size;
  if (reported !== undefined) return reported;
  const split = splitClientModelId(session.models().currentModelId ?? '');
  return (split && core.models.get(split.serviceId)?.profile(split.model).contextWindow) ?? 0;
}

/** qwen serve's `GET /session/{id}/stats`, from what Berth counts: the usage meter and the turns kept. */
async function stats(core: Core, session: Session) {
  const { session: total } = session.usage.snapshot();
  const modelName = session.models().currentModelId ?? 'unknown';
  const turns = await session.rewindSnapshots();
  const now = core.clock.now();
  return {
    v: 1,
    sessionId: session.id,
    workspaceCwd: workspaceCwdOf(session),
    sessionStartTimeMs: session.createdAt,
    durationMs: Math.max(0, now - session.createdAt),
    promptCount: turns.length,
    // Berth sums usage per session, not per model: the whole count stands under the current model.
    models:
      total.requests === 0
        ? {}
        : {
            [modelName]: {
              api: { totalRequests: total.requests, totalErrors: 0, totalLatencyMs: 0 },
              tokens: { prompt: total.inputTokens, candidates: total.outputTokens, total: total.totalTokens, cached: total.cachedReadTokens, thoughts: total.thoughtTokens },
            },
          },
    sources: [],
    tools: { totalCalls: 0, totalSuccess: 0, totalFail: 0, totalDurationMs: 0, byName: {} },
    files: { totalLinesAdded: 0, totalLinesRemoved: 0 },
    skills: { totalCalls: 0, totalSuccess: 0, totalFail: 0, byName: {} },
  };
}

/** qwen serve's `GET /session/{id}/context-usage`: the fill the model last reported, no per-part breakdown. */
function contextUsage(core: Core, session: Session, showDetails: boolean) {
  const size = contextWindow(core, session);
  const used = session.usage.context?.used ?? 0;
  return {
    v: 1,
    sessionId: session.id,
    workspaceCwd: workspaceCwdOf(session),
    usage: {
      modelName: session.models().currentModelId ?? 'unknown',
      totalTokens: used,
      contextWindowSize: size,
      breakdown: { systemPrompt: 0, builtinTools: 0, mcpTools: 0, memoryFiles: 0, skills: 0, messages: used, freeSpace: Math.max(0, size - used), autocompactBuffer: 0 },
      builtinTools: [],
      mcpTools: [],
      memoryFiles: [],
      skills: [],
      isEstimated: session.usage.context === undefined,
      showDetails,
    },
  };
}

/**
 * qwen serve's per-session panels the Web Shell reads (README, "The qwen Web Shell against Berth"):
 * answered from Berth's facts where it has them (usage, context window, rewind points), and as
 * qwen's own empty shapes where Berth has no such thing (background tasks, subagents, hooks, LSP).
 */
export const webShellPanelsModule: HttpModule = {
  name: 'webshell-panels',
  features: () => [],
  register(app, core: Core) {
    app.get('/session/:id/stats', async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return stats(core, await sessionOf(core, request));
    });

    app.get('/session/:id/context-usage', async (request) => contextUsage(core, await sessionOf(core, request), query(request).detail === 'true'));

    app.get('/session/:id/rewind/snapshots', async (request) => {
      const snapshots = await (await sessionOf(core, request)).rewindSnapshots();
      return {
        snapshots: snapshots.map((s) => ({
          promptId: s.promptId,
          turnIndex: s.turnIndex,
          timestamp: new Date(s.at).toISOString(),
          // Berth keeps the files' prior contents, not line diffs: lines are not counted.
          diffStats: { filesChanged: s.filesChanged, insertions: 0, deletions: 0 },
        })),
      };
    });

    // Berth runs no background agents or monitors (its commands are read with workspace_poll): qwen's empty lists.
    app.get('/session/:id/tasks', async (request) => ({ v: 1, sessionId: (await sessionOf(core, request)).id, now: core.clock.now(), tasks: [] }));
    app.get('/session/:id/agents', async (request) => ({ v: 1, sessionId: (await sessionOf(core, request)).id, now: core.clock.now(), tasks: [] }));

    app.get('/session/:id/agent-trace', async (request) => {
      const root = query(request).rootAgentId;
      if (root !== undefined && (root.length === 0 || root.length > MAX_AGENT_ID)) throw new BerthError('invalid_root_agent_id');
      return { v: 1, sessionId: (await sessionOf(core, request)).id, nodes: [], rootAgentIds: [], warnings: [] };
    });

    app.get('/session/:id/hooks', async (request) => {
      const session = await sessionOf(core, request);
      return { v: 1, sessionId: session.id, workspaceCwd: workspaceCwdOf(session), disabled: false, hooks: [] };
    });

    app.get('/session/:id/lsp', async (request) => {
      const session = await sessionOf(core, request);
      const none = { configuredServers: 0, readyServers: 0, failedServers: 0, inProgressServers: 0, notStartedServers: 0 };
      return { v: 1, sessionId: session.id, workspaceCwd: workspaceCwdOf(session), enabled: false, ...none, servers: [] };
    });

    // Berth keeps no uploaded attachments (media goes inline in a prompt): the list is empty.
    app.get('/session/:id/attachments', async (request) => {
      await sessionOf(core, request);
      return { attachments: [] };
    });
  },
};
