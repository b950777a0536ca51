import type { McpServerSpec } from '../config/mcp-servers.js';
import type { Logger } from '../log.js';
import { BerthError } from '../protocol/errors/index.js';
import type { Tool, ToolResult } from '../tools/types.js';
import { McpConnection, type McpLaunch } from './connection.js';
import { MCP_IDLE_STOP_MS, MCP_RESTART_BASE_MS, MCP_RESTART_MAX_MS } from './limits.js';
import { resourceAndPromptTools } from './extras.js';
import { convertCatalog } from './tools.js';

export interface ServerHandleDeps {
  readonly spec: McpServerSpec;
  readonly launch: McpLaunch | undefined;
  readonly log: Logger;
  /** The server's catalog changed (first start, a restart): publish these tools. */
  onCatalog(tools: Tool[]): void;
  /** The server died and is not back yet: its tools are unavailable until `onCatalog` again. */
  onDown(): void;
}

/**
 * One configured MCP server of one workspace: started on first need, stopped
 * when idle (its tools stay listed; the next call starts it again), and
 * restarted with doubling back-off when it dies, so a crashing server costs a
 * few restarts a minute at most and never takes the session with it.
 */
export class ServerHandle {
  private connection: McpConnection | undefined;
  private starting: Promise<McpConnection> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private disposed = false;

  constructor(private readonly deps: ServerHandleDeps) {}

  get name(): string {
    return this.deps.spec.name;
  }

  /** The live connection, starting the server (and publishing its catalog) when there is none. */
  ensure(): Promise<McpConnection> {
    if (this.disposed) return Promise.reject(new BerthError('tool_unavailable', `MCP server ${this.name} is stopped`));
    if (this.connection) return Promise.resolve(this.connection);
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const connection = await this.ensure();
    this.touch();
    try {
      return await connection.call(tool, args, signal);
    } finally {
      this.touch();
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.idleTimer);
    clearTimeout(this.restartTimer);
    const connection = this.connection;
    this.connection = undefined;
    await connection?.close();
  }

  private async start(): Promise<McpConnection> {
    const { spec, log } = this.deps;
    let connection: McpConnection | undefined;
    try {
      connection = await McpConnection.open({
        spec,
        ...(this.deps.launch ? { launch: this.deps.launch } : {}),
        onStderr: (line) => log.info({ mcpServer: spec.name, stderr: line }, 'mcp server stderr'),
        onLost: (reason) => this.lost(connection, reason),
      });
      const catalog = convertCatalog(spec, await connection.listTools(), (tool, args, signal) => this.call(tool, args, signal));
      for (const r of catalog.refused) log.warn({ mcpServer: spec.name, tool: r.name, reason: r.reason }, 'mcp tool left out');
      if (this.disposed) throw new BerthError('tool_unavailable', `MCP server ${spec.name} is stopped`);
      const extras = resourceAndPromptTools(spec, connection.offers(), async (method, params, signal) => {
        const live = await this.ensure();
        this.touch();
        return live.ask(method, params, signal);
      });
      // A listed tool of the same name (the server's own `resources_list`, say) wins over the extra.
      const taken = new Set(catalog.tools.map((t) => t.name));
      this.deps.onCatalog([...catalog.tools, ...extras.filter((t) => !taken.has(t.name))]);
      this.connection = connection;
      this.failures = 0;
      this.touch();
      log.info({ mcpServer: spec.name, tools: catalog.tools.length }, 'mcp server ready');
      return connection;
    } catch (err) {
      await connection?.close();
      this.failures += 1;
      log.warn({ mcpServer: spec.name, err: (err as Error).message, failures: this.failures }, 'mcp server failed to start');
      throw err instanceof BerthError ? err : new BerthError('tool_unavailable', `MCP server ${spec.name}: ${(err as Error).message}`);
    }
  }

  private lost(connection: McpConnection | undefined, reason: string): void {
    if (this.disposed || (connection !== undefined && this.connection !== connection)) return;
    this.connection = undefined;
    clearTimeout(this.idleTimer);
    this.failures += 1;
    this.deps.onDown();
    const delay = Math.min(MCP_RESTART_MAX_MS, MCP_RESTART_BASE_MS * 2 ** (this.failures - 1));
    this.deps.log.warn({ mcpServer: this.name, reason, restartInMs: delay }, 'mcp server lost');
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.ensure().catch(() => this.scheduleRetry()), delay);
    this.restartTimer.unref();
  }

  /** A restart that failed tries again later, the wait doubling each time. */
  private scheduleRetry(): void {
    if (this.disposed) return;
    const delay = Math.min(MCP_RESTART_MAX_MS, MCP_RESTART_BASE_MS * 2 ** (this.failures - 1));
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.ensure().catch(() => this.scheduleRetry()), delay);
    this.restartTimer.unref();
  }

  /** Restarts the idle clock: a server nobody uses for MCP_IDLE_STOP_MS is stopped, its tools kept. */
  private touch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const connection = this.connection;
      this.connection = undefined;
      this.deps.log.info({ mcpServer: this.name }, 'mcp server stopped while idle');
      void connection?.close();
    }, MCP_IDLE_STOP_MS);
    this.idleTimer.unref();
  }
}
