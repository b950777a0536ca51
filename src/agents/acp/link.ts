import * as acp from '@agentclientprotocol/sdk';
import { BerthError } from '../../protocol/errors/index.js';
import type { AgentExit } from '../driver.js';
import type { ClientSide } from './connection.js';
import type { AgentHost } from './host.js';
import { sessionMeta } from './modules.js';
import type { AgentProcess } from './process.js';

/** The models an agent reports in `session/new` (ACP's model selection, where the agent offers it). */
export interface AgentModels {
  readonly currentModelId: string;
  readonly availableModels: readonly { modelId: string; name: string; description?: string | null }[];
}

/** One Berth session's ACP session on an agent host (its process may serve other sessions too). */
export interface AgentLink {
  readonly host: AgentHost;
  readonly process: AgentProcess;
  readonly connection: acp.ClientConnection;
  /** Changes only when Berth loads an earlier session on this connection (session-record.ts). */
  sessionId: string;
  readonly models: AgentModels | null;
  readonly canLoad: boolean;
  /** Rejects with `agent_exited` once the process is gone; every request races it. */
  readonly died: Promise<never>;
  /** Resolves with how the process ended. */
  readonly exit: Promise<AgentExit>;
  /** What every `session/new` and `session/load` of this session carries besides its ids: MCP servers, `_meta`. */
  readonly opening: SessionOpening;
}

/** The parts of `session/new` and `session/load` that are the same for both. */
export interface SessionOpening {
  readonly mcpServers: acp.McpServer[];
  readonly _meta: Record<string, unknown>;
}

export interface OpenLinkOptions {
  readonly agentId: string;
  /** The running host of this agent and workspace, or a new one (started within the same bound). */
  readonly host: (until: Promise<never>) => Promise<AgentHost>;
  readonly cwd: string;
  /** The Berth session, told to the agent in `_meta` (its tab for the module protocol). */
  readonly sessionId: string;
  readonly timeoutMs: number;
  readonly side: ClientSide;
  /** The session's MCP servers in ACP's shape, for an agent with these capabilities (mcp-servers.ts). */
  readonly mcpServers?: (caps: acp.McpCapabilities | undefined) => acp.McpServer[];
  /** An ACP session of an earlier process to load instead of a new one, when the agent can load. */
  readonly loadSessionId?: string;
}

type NewSessionAnswer = acp.NewSessionResponse & { models?: AgentModels | null };

/**
 * Opens a session's ACP session: a host (spawned and initialized if none
 * runs), then `session/new` in the session's cwd, or `session/load` of an
 * earlier one. Bounded by the start timeout as a whole: past it the caller
 * gets 504 `init_timeout`, and a host started for this session is stopped.
 */
export async function openLink(options: OpenLinkOptions): Promise<AgentLink> {
  const { agentId } = options;
  let timer: NodeJS.Timeout | undefined;
  const until = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new BerthError('init_timeout', `The agent ${agentId} did not start within ${options.timeoutMs} ms`, {
          errorKind: 'init_timeout',
          retryable: true,
          sideEffectPossible: false,
          phase: 'channel.initialize',
          timeoutMs: options.timeoutMs,
        }),
      );
    }, options.timeoutMs);
  });
  until.catch(() => {});
  let host: AgentHost | undefined;
  let sessionId: string | undefined;
  try {
    host = await options.host(until);
    const h = host;
    const opening: SessionOpening = {
      mcpServers: options.mcpServers?.(h.mcpCapabilities) ?? [],
      _meta: sessionMeta(options.sessionId),
    };
    const open = async (): Promise<NewSessionAnswer> => {
      const load = options.loadSessionId;
      if (load !== undefined && h.canLoad) {
        h.bind(load, options.side);
        const loaded = await h.connection.agent.request<Omit<NewSessionAnswer, 'sessionId'>>('session/load', { sessionId: load, cwd: options.cwd, ...opening });
        return { ...loaded, sessionId: load };
      }
      return h.connection.agent.request<NewSessionAnswer>('session/new', { cwd: options.cwd, ...opening });
    };
    const created = await Promise.race([open(), until, h.died]);
    sessionId = created.sessionId;
    h.bind(sessionId, options.side);
    return {
      host: h,
      process: h.process,
      connection: h.connection,
      sessionId,
      models: created.models ?? null,
      canLoad: h.canLoad,
      died: h.died,
      exit: h.exit,
      opening,
    };
  } catch (err) {
    if (host) {
      if (options.loadSessionId !== undefined) host.release(options.loadSessionId);
      // A host nobody else uses goes; one that timed out is stopped even if others share it: it is not answering.
      if (err instanceof BerthError && err.code === 'init_timeout') host.stop();
      else host.release('');
      if (host.idle) await host.process.exited;
    }
    if (err instanceof acp.RequestError) {
      throw new BerthError('agent_unavailable', `The agent ${agentId} refused to start a session: ${err.message}`, { agentId, agentCode: err.code });
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
