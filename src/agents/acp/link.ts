import * as acp from '@agentclientprotocol/sdk';
import { BerthError } from '../../protocol/errors/index.js';
import type { AgentExit } from '../driver.js';
import { CLIENT_CAPABILITIES, connectAgent, type ClientSide } from './connection.js';
import type { AgentLaunch } from './launch.js';
import { AgentProcess } from './process.js';

/** The models an agent reports in `session/new` (ACP's model selection, where the agent offers it). */
export interface AgentModels {
  readonly currentModelId: string;
  readonly availableModels: readonly { modelId: string; name: string; description?: string | null }[];
}

/** One running agent process with its ACP connection and the ACP session Berth's session speaks to. */
export interface AgentLink {
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
}

export interface OpenLinkOptions {
  readonly agentId: string;
  readonly launch: AgentLaunch;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly side: ClientSide;
  /** An ACP session of an earlier process to load instead of a new one, when the agent can load. */
  readonly loadSessionId?: string;
  /** Told of the process before `initialize`, so shutdown and the memory budget see it at once. */
  readonly started: (process: AgentProcess) => void;
}

type NewSessionAnswer = acp.NewSessionResponse & { models?: AgentModels | null };

/**
 * Starts the agent and opens its session: spawn, `initialize` (offering
 * Berth's fs and terminals), `session/new` in the workspace. Bounded by the
 * start timeout: past it the process is killed and the caller gets 504
 * `init_timeout`; a process that exits first gives `agent_unavailable` with the
 * end of its stderr, and a command that cannot run says which command.
 */
export async function openLink(options: OpenLinkOptions): Promise<AgentLink> {
  const { agentId } = options;
  const process = new AgentProcess(options.launch);
  options.started(process);
  const connection = connectAgent(process, options.side);
  const exit: Promise<AgentExit> = process.exited.then((e) => ({ reason: 'agent_exited', exitCode: e.exitCode, signalCode: e.signalCode }));
  const died = exit.then((e): never => {
    const how = e.signalCode ? `signal ${e.signalCode}` : `code ${e.exitCode}`;
    throw new BerthError('agent_exited', `The agent ${agentId} exited (${how})${stderrNote(process)}`, { agentId, ...e });
  });
  died.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
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
  const startFailed = died.catch((err: unknown): never => {
    const cause = process.startError;
    if (cause) {
      throw new BerthError('agent_unavailable', `The agent ${agentId} cannot start: running "${options.launch.command}" failed: ${cause.message}`, {
        agentId,
        command: options.launch.command,
      });
    }
    const e = err as BerthError;
    throw new BerthError('agent_unavailable', `The agent ${agentId} exited while starting: ${e.message}`, { agentId });
  });
  try {
    const handshake = async () => {
      const init = await connection.agent.request('initialize', {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: CLIENT_CAPABILITIES,
        clientInfo: { name: 'berth', version: '1' },
      });
      const load = options.loadSessionId;
      if (load !== undefined && init.agentCapabilities?.loadSession === true) {
        const loaded = await connection.agent.request<Omit<NewSessionAnswer, 'sessionId'>>('session/load', { sessionId: load, cwd: options.cwd, mcpServers: [] });
        return { init, created: { ...loaded, sessionId: load } };
      }
      const created = await connection.agent.request<NewSessionAnswer>('session/new', { cwd: options.cwd, mcpServers: [] });
      return { init, created };
    };
    const { init, created } = await Promise.race([handshake(), timeout, startFailed]);
    return {
      process,
      connection,
      sessionId: created.sessionId,
      models: created.models ?? null,
      canLoad: init.agentCapabilities?.loadSession === true,
      died,
      exit,
    };
  } catch (err) {
    connection.close();
    await process.kill();
    if (err instanceof acp.RequestError) {
      throw new BerthError('agent_unavailable', `The agent ${agentId} refused to start a session: ${err.message}`, { agentId, agentCode: err.code });
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function stderrNote(process: AgentProcess): string {
  const tail = process.stderr.trim().split('\n').slice(-3).join(' | ');
  return tail === '' ? '' : `: ${tail}`;
}
