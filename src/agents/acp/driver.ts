import * as acp from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import { BerthError } from '../../protocol/errors/index.js';
import type { AgentExit, AgentDriver, DriverState, HistoryItem, ModelInfo, SessionUpdate, TurnIO, TurnResult } from '../driver.js';
import type { ClientSide } from './connection.js';
import { FsBridge, type ToolRunner } from './fs-bridge.js';
import type { AgentHost } from './host.js';
import { MAX_EARLY_UPDATES } from './limits.js';
import { openLink, type AgentLink } from './link.js';
import { loadEarlierSession, type AgentSessionRecord } from './session-record.js';
import { permissionRequestOf, seedBlock, seededNotice } from './translate.js';
import { Terminals } from './terminals.js';

export interface AcpDriverOptions {
  readonly agentId: string;
  /** The running agent host of this workspace, or a new one started within `until` (the catalog shares them). */
  readonly host: (until: Promise<never>) => Promise<AgentHost>;
  readonly startTimeoutMs: number;
  /** `--agent-idle-ms`: how long without a turn before this session leaves its process. */
  readonly idleMs: number;
  /** The Berth session this driver serves. */
  readonly sessionId: string;
  /** The workspace's MCP servers for an agent with these capabilities, given in `session/new` and `session/load`. */
  readonly mcpServers?: (caps: acp.McpCapabilities | undefined) => acp.McpServer[];
  /** The workspace root the agent's paths must stay in. */
  readonly root: string;
  /** The session's cwd, given to `session/new`. */
  readonly cwd: string;
  /** Which ACP session this Berth session last used, for `session/load` after a restore. */
  readonly record?: AgentSessionRecord;
  /** Told of the models the agent reports, for `/capabilities`. */
  readonly reportModels?: (models: readonly ModelInfo[]) => void;
}

/**
 * An external agent behind `AgentDriver` (issue 12): one agent process per
 * session, spoken to over ACP. Its `session/update`s are the turn's updates;
 * its fs, terminal and permission requests are answered through the turn's
 * tool layer, so Berth's guard, approval mode, receipts and journal apply.
 * A process that dies is reported once (`onExit`); the next turn of a driver
 * whose process was reaped for idleness starts a new one, seeded with the
 * conversation.
 */
export class AcpAgentDriver implements AgentDriver, ClientSide {
  readonly harness: string;
  private link: AgentLink | null = null;
  private turn: TurnIO | null = null;
  /** Set when the agent was allowed something this turn; the next effect it asks for runs without asking again. */
  private allowed = false;
  private seed: string | null = null;
  private wantedModel: string | null = null;
  /** The ACP session of a process reaped for idleness, loaded again by the next one when the agent can. */
  private reapedSessionId: string | undefined;
  private recordedId: string | undefined;
  private models: ModelInfo[] = [];
  private currentModel: string | null = null;
  private exitListener: ((exit: AgentExit) => void) | null = null;
  private idleListener: ((update: SessionUpdate) => void) | null = null;
  /** Updates sent before the session listened (right after `session/new`), kept for it. */
  private readonly early: SessionUpdate[] = [];
  private loading = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  private readonly fs: FsBridge;
  private readonly terminals: Terminals;

  constructor(private readonly options: AcpDriverOptions) {
    this.harness = options.agentId;
    this.fs = new FsBridge(options.root);
    this.terminals = new Terminals(this.fs);
  }

  /** Starts the process and its ACP session (POST /session waits for this). */
  async start(): Promise<void> {
    await this.connect();
  }

  async runTurn(io: TurnIO): Promise<TurnResult> {
    clearTimeout(this.idleTimer);
    const link = this.link ?? (await this.connect());
    this.turn = io;
    this.allowed = false;
    const prompt: acp.ContentBlock[] = [...(io.prompt as acp.ContentBlock[])];
    if (this.seed !== null) {
      this.loading = true;
      const loaded = await loadEarlierSession(link, this.options.record?.read(), this.options.cwd, this).finally(() => (this.loading = false));
      io.emit(seededNotice(loaded));
      if (!loaded) prompt.unshift(seedBlock(this.seed));
      this.seed = null;
    }
    // Recorded once a turn runs on it: a restored session keeps its earlier ACP session until then.
    if (this.recordedId !== link.sessionId) {
      this.options.record?.write(link.sessionId);
      this.recordedId = link.sessionId;
    }
    const cancel = () => void link.connection.agent.notify('session/cancel', { sessionId: link.sessionId }).catch(() => {});
    io.signal.addEventListener('abort', cancel, { once: true });
    try {
      const answer = await Promise.race([link.connection.agent.request('session/prompt', { sessionId: link.sessionId, prompt }), link.died]);
      return { stopReason: answer.stopReason };
    } catch (err) {
      // A connection that closed under the request means the process is going: report its exit, not the stream's end.
      if (link.connection.signal.aborted) await link.died;
      if (err instanceof acp.RequestError) throw new BerthError('agent_error', `The agent ${this.harness} failed the turn: ${err.message}`, { agentCode: err.code });
      throw err;
    } finally {
      io.signal.removeEventListener('abort', cancel);
      this.turn = null;
      this.armIdleReaper();
    }
  }

  state(): DriverState {
    const prefix = (m: string) => `${this.harness}/${m}`;
    if (this.models.length === 0) {
      return { models: { currentModelId: this.harness, availableModels: [{ modelId: this.harness, name: this.harness }] } };
    }
    return { models: { currentModelId: this.currentModel === null ? null : prefix(this.currentModel), availableModels: this.models } };
  }

  async setModel(modelId: string): Promise<void> {
    const bare = modelId.startsWith(`${this.harness}/`) ? modelId.slice(this.harness.length + 1) : modelId;
    if (modelId === this.harness && this.models.length === 0) return;
    if (!this.models.some((m) => m.modelId === `${this.harness}/${bare}`)) {
      throw new BerthError('model_not_found', `Unknown model ${modelId}; take ids from state.models.availableModels`, { modelId });
    }
    const link = this.link;
    if (link) {
      await Promise.race([link.connection.agent.request('session/set_model', { sessionId: link.sessionId, modelId: bare }), link.died]);
    } else {
      this.wantedModel = bare;
    }
    this.currentModel = bare;
  }

  restore(history: readonly HistoryItem[]): void {
    this.seed = history.length > 0 ? JSON.stringify(history) : null;
  }

  onExit(listener: (exit: AgentExit) => void): void {
    this.exitListener = listener;
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.idleTimer);
    const link = this.link;
    this.link = null;
    if (link) this.leave(link);
  }

  // ── what the agent asks of Berth (connection.ts) ─────────────────────────

  update(params: acp.SessionNotification): void {
    // The host routes only this session's updates here; while loading, the agent replays history clients already have.
    if (this.loading || (this.link !== null && params.sessionId !== this.link.sessionId)) return;
    const update = params.update as unknown as SessionUpdate;
    if (this.turn !== null) return this.turn.emit(update);
    // Between turns (qwen announces its commands right after session/new): the session publishes it.
    if (this.idleListener) this.idleListener(update);
    else if (this.early.length < MAX_EARLY_UPDATES) this.early.push(update);
  }

  onUpdate(listener: (update: SessionUpdate) => void): void {
    this.idleListener = listener;
    for (const update of this.early.splice(0)) listener(update);
  }

  async requestPermission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> {
    const turn = this.turnFor(params.sessionId);
    const outcome = await turn.askPermission(permissionRequestOf(this.harness, params));
    if (outcome.outcome === 'selected') {
      const chosen = params.options.find((o) => o.optionId === outcome.optionId);
      this.allowed = chosen?.kind === 'allow_once' || chosen?.kind === 'allow_always';
    }
    return { outcome };
  }

  readTextFile(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    return this.fs.read(this.runner(params.sessionId), params);
  }

  writeTextFile(params: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
    return this.fs.write(this.runner(params.sessionId), params, this.takeAllowed());
  }

  createTerminal(params: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse> {
    return this.terminals.create(this.runner(params.sessionId), params, this.takeAllowed());
  }

  terminalOutput(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse> {
    return this.terminals.output(this.runner(params.sessionId), params);
  }

  waitForTerminalExit(params: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    const turn = this.turnFor(params.sessionId);
    return this.terminals.waitForExit(this.runner(params.sessionId), params, turn.signal);
  }

  killTerminal(params: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse> {
    return this.terminals.kill(this.runner(params.sessionId), params);
  }

  releaseTerminal(params: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse> {
    return this.terminals.release(this.runner(params.sessionId), params);
  }

  // ── inside ───────────────────────────────────────────────────────────────

  private async connect(): Promise<AgentLink> {
    const o = this.options;
    const loadSessionId = this.reapedSessionId;
    this.reapedSessionId = undefined;
    this.loading = loadSessionId !== undefined;
    const link = await openLink({
      agentId: o.agentId,
      host: o.host,
      cwd: o.cwd,
      sessionId: o.sessionId,
      ...(o.mcpServers && { mcpServers: o.mcpServers }),
      timeoutMs: o.startTimeoutMs,
      side: this,
      ...(loadSessionId !== undefined && { loadSessionId }),
    }).finally(() => (this.loading = false));
    if (this.disposed) {
      link.host.release(link.sessionId);
      throw new BerthError('session_closed', 'The session closed while its agent was starting');
    }
    this.link = link;
    link.host.modules?.grant(o.sessionId);
    if (link.models) {
      this.models = link.models.availableModels.map((m) => ({
        modelId: `${this.harness}/${m.modelId}`,
        name: m.name,
        ...(m.description ? { description: m.description } : {}),
      }));
      this.currentModel = link.models.currentModelId;
      o.reportModels?.(this.models);
    }
    void link.exit.then((exit) => {
      if (this.link !== link) return; // disposed or reaped: Berth ended it
      this.link = null;
      if (!this.disposed) this.exitListener?.(exit);
    });
    if (this.wantedModel !== null) {
      const wanted = this.wantedModel;
      this.wantedModel = null;
      await this.setModel(wanted);
    }
    return link;
  }

  /** Leaves the host when idle (its process goes with its last session); the next turn loads the same ACP session when the agent can. */
  private armIdleReaper(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const link = this.link;
      if (!link || this.turn !== null) return;
      this.link = null;
      if (link.canLoad) this.reapedSessionId = link.sessionId;
      this.leave(link);
    }, this.options.idleMs);
    this.idleTimer.unref();
  }

  /** This session leaves its host (and the process's module token stops speaking for its tab). */
  private leave(link: AgentLink): void {
    link.host.modules?.revoke(this.options.sessionId);
    link.host.release(link.sessionId);
  }

  private takeAllowed(): boolean {
    const allowed = this.allowed;
    this.allowed = false;
    return allowed;
  }

  /** The running turn, for a request naming this driver's ACP session; anything else is refused. */
  private turnFor(sessionId: string): TurnIO {
    if (sessionId !== this.link?.sessionId) throw acp.RequestError.invalidParams({ sessionId }, 'unknown session');
    if (this.turn === null) throw acp.RequestError.invalidRequest({ sessionId }, 'no prompt is running in this session');
    return this.turn;
  }

  private runner(sessionId: string): ToolRunner {
    const turn = this.turnFor(sessionId);
    return (name, args, options) => turn.callTool({ toolCallId: `acp-${randomUUID()}`, name, args }, options);
  }
}
