import type { AgentSettings, AgentSpec } from '../../config/agents.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Workspace } from '../../workspace/types.js';
import type { ModelInfo } from '../driver.js';
import type { AcpAgentDriver } from './driver.js';
import { agentLaunch, remoteStandIn, type LaunchContext } from './launch.js';
import { agentMcpServers } from './mcp-servers.js';
import type { AgentHost } from './host.js';
import type { AgentProcess } from './process.js';

const MIB = 1024 * 1024;

/**
 * The daemon's external agents (issue 12): which are offered, the models each
 * reported, every process started for them (for the memory budget and for
 * shutdown), and the drivers sessions run them with.
 */
export class AgentCatalog {
  private readonly processes = new Set<AgentProcess>();
  /** The running (or starting) host of each agent and workspace: sessions of one workspace share a process. */
  private readonly hosts = new Map<string, Promise<AgentHost>>();
  private readonly reported = new Map<string, readonly ModelInfo[]>();

  constructor(
    private readonly settings: AgentSettings,
    private readonly ctx: LaunchContext,
  ) {}

  /** Agent ids, the default first (`/capabilities` lists them beside the model services). */
  ids(): string[] {
    const ids = this.settings.agents.map((a) => a.id);
    const first = this.settings.defaultAgent;
    return first === null ? ids : [first, ...ids.filter((id) => id !== first)];
  }

  get defaultAgent(): string | null {
    return this.settings.defaultAgent;
  }

  /** The agent a model id or service id names: `<agentId>` or `<agentId>/<modelId>`. */
  agentOf(id: string): string | undefined {
    const head = id.includes('/') ? id.slice(0, id.indexOf('/')) : id;
    return this.settings.agents.some((a) => a.id === head) ? head : undefined;
  }

  /** The models each agent reported in its latest `session/new`, as `<agentId>/<modelId>`. */
  models(): { agentId: string; models: readonly ModelInfo[] }[] {
    return this.ids().map((agentId) => ({ agentId, models: this.reported.get(agentId) ?? [] }));
  }

  /** Resident memory of every live agent process, in bytes. */
  rssBytes(): number {
    let total = 0;
    for (const p of this.processes) total += p.rssBytes();
    return total;
  }

  /**
   * Starts a driver for `agentId` on a session's workspace and waits for its
   * ACP session: 503 when the memory budget is spent or the command is
   * missing; 504 `init_timeout` when it is slow. On a remote workspace the
   * process runs here, in a stand-in folder (launch.ts `remoteStandIn`) whose
   * paths its fs and terminal requests map onto the owner's project through
   * the gateway channel's tools.
   */
  async create(agentId: string, sessionId: string, workspace: Workspace, cwd: string | null): Promise<AcpAgentDriver> {
    const spec = this.spec(agentId);
    this.checkBudget(agentId);
    const root = workspace.kind === 'local' ? workspace.root : remoteStandIn(this.ctx.berthHome, agentId, workspace.id);
    const start = cwd ?? root;
    // The ACP SDK loads with the first agent session, not at start-up (issue 17).
    const [{ AcpAgentDriver }, { AgentSessionRecord }] = await Promise.all([import('./driver.js'), import('./session-record.js')]);
    const driver = new AcpAgentDriver({
      agentId,
      host: (until) => this.hostFor(spec, { id: workspace.id, root }, until),
      sessionId,
      mcpServers: (caps) => {
        // A remote workspace's servers run on its owner's machine, reached with workspace_tools; none is given to the agent.
        const specs = workspace.kind === 'local' ? (this.ctx.mcpServers?.(workspace) ?? []) : [];
        const given = agentMcpServers(specs, caps, { root, path: this.ctx.path });
        for (const s of given.skipped) this.ctx.log?.warn({ agentId, mcpServer: s.name, reason: s.reason }, 'MCP server not given to the agent');
        return given.servers;
      },
      startTimeoutMs: this.settings.startTimeoutMs,
      idleMs: this.settings.idleMs,
      root,
      cwd: start,
      record: new AgentSessionRecord(this.ctx.berthHome, agentId, sessionId),
      reportModels: (models) => this.reported.set(agentId, models),
    });
    await driver.start();
    return driver;
  }

  /**
   * Loads the driver and the ACP SDK now when sessions run an agent by
   * default (`--agent`), and rehearses one exchange so the SDK's message
   * checks are built, so the first agent session waits for neither; without
   * a default agent they still load with the first agent session.
   */
  async warmUp(): Promise<void> {
    if (this.settings.defaultAgent === null) return;
    const [{ rehearseAcp }] = await Promise.all([import('./warm-up.js'), import('./driver.js'), import('./session-record.js'), import('./host.js')]);
    await rehearseAcp();
  }

  /** Kills every agent process group and waits for them (daemon shutdown). */
  async shutdown(): Promise<void> {
    await Promise.all([...this.processes].map((p) => p.kill()));
  }

  private spec(agentId: string): AgentSpec {
    const spec = this.settings.agents.find((a) => a.id === agentId);
    if (!spec) throw new BerthError('model_not_found', `Unknown agent ${agentId}`, { agentId });
    return spec;
  }

  private checkBudget(agentId: string): void {
    const budget = this.settings.memoryMb;
    if (budget === null) return;
    const used = this.rssBytes();
    if (used >= budget * MIB) {
      throw new BerthError(
        'agent_memory_exhausted',
        `Agent processes use ${Math.round(used / MIB)} MiB of their ${budget} MiB budget (--agent-memory-mb); close an agent session or raise the budget before starting ${agentId}`,
        { agentId, usedMb: Math.round(used / MIB), budgetMb: budget },
      );
    }
  }

  /** The live host of this agent and workspace, else a new one (concurrent starts share it). */
  private async hostFor(spec: AgentSpec, workspace: { id: string; root: string }, until: Promise<never>): Promise<AgentHost> {
    const key = `${spec.id}\u0000${workspace.id}`;
    const known = this.hosts.get(key);
    if (known) {
      const host = await known.catch(() => null);
      if (host && host.alive && this.hosts.get(key) === known) return host;
    }
    // The process starts in the workspace root; each session's cwd goes to its own session/new.
    const modules = this.ctx.modules?.(workspace.id) ?? null;
    let launch;
    try {
      launch = agentLaunch(spec, workspace, workspace.root, this.ctx, modules);
    } catch (err) {
      modules?.revoke();
      throw err;
    }
    const starting = import('./host.js').then(({ startHost }) =>
      startHost(spec.id, launch, (p) => this.track(p), until, { maxMessageBytes: this.settings.maxMessageBytes, modules }),
    );
    this.hosts.set(key, starting);
    starting.then(
      (host) => void host.exit.then(() => this.hosts.get(key) === starting && this.hosts.delete(key)),
      () => this.hosts.get(key) === starting && this.hosts.delete(key),
    );
    return starting;
  }

  private track(p: AgentProcess): void {
    this.processes.add(p);
    void p.exited.then(() => this.processes.delete(p));
  }
}
