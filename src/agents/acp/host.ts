import * as acp from '@agentclientprotocol/sdk';
import { BerthError } from '../../protocol/errors/index.js';
import type { AgentExit } from '../driver.js';
import { CLIENT_CAPABILITIES, connectAgent, type ClientSide } from './connection.js';
import type { AgentLaunch } from './launch.js';
import { AGENT_KILL_GRACE_MS, MAX_EARLY_UPDATES } from './limits.js';
import type { AgentModuleAccess } from './modules.js';
import { AgentProcess } from './process.js';

/**
 * One agent process and its ACP connection, shared by the sessions of one
 * workspace that run this agent (qwen serve runs one `qwen --acp` per
 * workspace the same way; one process per session cost about 450 MiB per
 * session in `npm run bench -- agents`). Requests and updates are routed to
 * the session they name; a session nobody here opened gets an error answer.
 */
export class AgentHost {
  readonly died: Promise<never>;
  readonly exit: Promise<AgentExit>;
  canLoad = false;
  /** Which MCP transports beyond stdio the agent takes (its `initialize` answer). */
  mcpCapabilities: acp.McpCapabilities | undefined;
  private stopping = false;
  /** Why Berth stopped a process whose connection broke under it (a line over the bound, an unreadable stream). */
  private broken: Error | null = null;
  private readonly sides = new Map<string, ClientSide>();
  /**
   * Updates for a session not bound yet: an agent may send them right after its
   * `session/new` answer, before Berth has read the id. Kept (a few) until it is bound.
   */
  private unrouted: acp.SessionNotification[] = [];
  readonly connection: acp.ClientConnection;

  constructor(
    readonly agentId: string,
    readonly process: AgentProcess,
    /** The longest line the agent may send (`--agent-max-message-bytes`). */
    readonly maxMessageBytes: number,
    /** The process's module-protocol token, which each session joining it is granted; revoked when it exits. */
    readonly modules: AgentModuleAccess | null = null,
  ) {
    this.connection = connectAgent(process, this.dispatcher(), maxMessageBytes);
    // A connection that closes while the process runs cannot be resumed mid-stream: the process goes, and says why.
    this.connection.signal.addEventListener('abort', () => this.breakOff(this.connection.signal.reason), { once: true });
    this.exit = process.exited.then((e) => {
      modules?.revoke();
      const reason = this.broken === null ? 'agent_exited' : 'agent_protocol_error';
      return { reason, exitCode: e.exitCode, signalCode: e.signalCode };
    });
    this.died = this.exit.then((e): never => {
      if (this.broken !== null) {
        throw new BerthError('agent_protocol_error', `The agent ${agentId} broke the protocol and was stopped: ${this.broken.message}`, { agentId, ...e });
      }
      const how = e.signalCode ? `signal ${e.signalCode}` : `code ${e.exitCode}`;
      throw new BerthError('agent_exited', `The agent ${agentId} exited (${how})${stderrNote(process)}`, { agentId, ...e });
    });
    this.died.catch(() => {});
  }

  /** No session uses it (it has been stopped, or is about to be). */
  get idle(): boolean {
    return this.sides.size === 0;
  }

  /** Running and not being stopped: a new session may join it. */
  get alive(): boolean {
    return this.process.alive && !this.stopping;
  }

  /** Routes what the agent sends about `sessionId` to `side` from now on. */
  bind(sessionId: string, side: ClientSide): void {
    this.sides.set(sessionId, side);
    const waiting = this.unrouted.filter((u) => u.sessionId === sessionId);
    this.unrouted = this.unrouted.filter((u) => u.sessionId !== sessionId);
    for (const u of waiting) side.update(u);
  }

  /** A session left: when none is left, the process goes (its group with it). */
  release(sessionId: string): void {
    this.sides.delete(sessionId);
    if (this.sides.size === 0) this.stop();
  }

  stop(): void {
    this.stopping = true;
    this.sides.clear();
    this.connection.close();
    void this.process.kill();
  }

  /** `initialize`, offering Berth's fs and terminals. */
  async initialize(): Promise<void> {
    const init = await this.connection.agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: CLIENT_CAPABILITIES,
      clientInfo: { name: 'berth', version: '1' },
    });
    this.canLoad = init.agentCapabilities?.loadSession === true;
    this.mcpCapabilities = init.agentCapabilities?.mcpCapabilities ?? undefined;
  }

  /** The connection closed under a running process (Berth did not stop it): stop the process, keeping the cause. */
  private breakOff(reason: unknown): void {
    if (this.stopping || !this.process.alive) return;
    const tooLong = oversized(reason, this.maxMessageBytes);
    if (tooLong) return this.stopBroken(tooLong);
    // Its output also ends when it exits on its own: only one that keeps running past the grace period is broken.
    const timer = setTimeout(() => {
      if (!this.stopping && this.process.alive) this.stopBroken(new Error('its ACP output closed while it kept running'));
    }, AGENT_KILL_GRACE_MS);
    timer.unref();
  }

  private stopBroken(cause: Error): void {
    this.broken = cause;
    this.stopping = true;
    void this.process.kill();
  }

  private dispatcher(): ClientSide {
    const to = (sessionId: string): ClientSide => {
      const side = this.sides.get(sessionId);
      if (!side) throw acp.RequestError.invalidParams({ sessionId }, 'unknown session');
      return side;
    };
    return {
      update: (p) => {
        const side = this.sides.get(p.sessionId);
        if (side) side.update(p);
        else if (this.unrouted.length < MAX_EARLY_UPDATES) this.unrouted.push(p);
      },
      requestPermission: (p) => to(p.sessionId).requestPermission(p),
      readTextFile: (p) => to(p.sessionId).readTextFile(p),
      writeTextFile: (p) => to(p.sessionId).writeTextFile(p),
      createTerminal: (p) => to(p.sessionId).createTerminal(p),
      terminalOutput: (p) => to(p.sessionId).terminalOutput(p),
      waitForTerminalExit: (p) => to(p.sessionId).waitForTerminalExit(p),
      killTerminal: (p) => to(p.sessionId).killTerminal(p),
      releaseTerminal: (p) => to(p.sessionId).releaseTerminal(p),
    };
  }
}

/**
 * Spawns the agent and initializes it, bounded by `until` (the start
 * timeout's promise): a process that exits first gives `agent_unavailable`
 * with the end of its stderr, and a command that cannot run says which.
 */
export async function startHost(
  agentId: string,
  launch: AgentLaunch,
  started: (p: AgentProcess) => void,
  until: Promise<never>,
  bounds: { readonly maxMessageBytes: number; readonly modules: AgentModuleAccess | null },
): Promise<AgentHost> {
  const process = new AgentProcess(launch);
  started(process);
  const host = new AgentHost(agentId, process, bounds.maxMessageBytes, bounds.modules);
  const startFailed = host.died.catch((err: unknown): never => {
    const cause = process.startError;
    if (cause) {
      throw new BerthError('agent_unavailable', `The agent ${agentId} cannot start: running "${launch.command}" failed: ${cause.message}`, {
        agentId,
        command: launch.command,
      });
    }
    throw new BerthError('agent_unavailable', `The agent ${agentId} exited while starting: ${(err as Error).message}`, { agentId });
  });
  try {
    await Promise.race([host.initialize(), until, startFailed]);
    return host;
  } catch (err) {
    host.stop();
    await process.exited;
    if (err instanceof acp.RequestError) throw new BerthError('agent_unavailable', `The agent ${agentId} refused to initialize: ${err.message}`, { agentId });
    throw err;
  }
}

/** The SDK's stream error for a line over the bound, said with the knob that sets it. */
function oversized(reason: unknown, maxMessageBytes: number): Error | null {
  if (!(reason instanceof Error) || reason.name !== 'MessageTooLargeError') return null;
  return new Error(`it sent a message longer than ${maxMessageBytes} bytes (--agent-max-message-bytes)`);
}

function stderrNote(process: AgentProcess): string {
  const tail = process.stderr.trim().split('\n').slice(-3).join(' | ');
  return tail === '' ? '' : `: ${tail}`;
}
