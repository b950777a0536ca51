import { loadWorkspaceMcpServers, type McpServerSpec, type McpStdioSpec } from '../config/mcp-servers.js';
import type { Logger } from '../log.js';
import type { ApplicationToolRegistry } from '../tools/application-registry.js';
import type { LocalWorkspace, Workspace } from '../workspace/types.js';
import type { McpLaunch } from './connection.js';
import { MCP_READY_WAIT_MS } from './limits.js';
import { ServerHandle } from './server-handle.js';

/** The application id an MCP server's tools are published under in a workspace. */
export const mcpApplicationId = (server: string): string => `mcp:${server}`;

export interface McpHubDeps {
  readonly registry: ApplicationToolRegistry;
  /** Servers of the daemon's own config: every local workspace gets them. */
  readonly homeServers: readonly McpServerSpec[];
  readonly log: Logger;
  /** How a stdio server starts in a workspace (the wiring adds the command confinement to the workspace's own servers). */
  launchFor(workspace: LocalWorkspace, spec: McpStdioSpec): McpLaunch;
}

/**
 * The MCP servers of each local workspace (issue 15): nothing starts until a
 * session needs the workspace's tools; then every server of the workspace
 * starts and publishes its tools into the application registry as
 * `mcp:<server>`, where sessions see them directly (namespaced
 * `mcp__<server>__<tool>`) and `workspace_tools`/`workspace_tool` reach them
 * too — which is how a remote host uses an owner's servers through the
 * gateway channel without ever seeing their configuration.
 */
export class McpHub {
  private readonly workspaces = new Map<string, { ready: Promise<void>; handles: ServerHandle[] }>();
  private closed = false;

  constructor(private readonly deps: McpHubDeps) {}

  /**
   * Starts the workspace's servers once and waits (at most MCP_READY_WAIT_MS)
   * until each has published its tools or failed; a server that fails is
   * logged and retried on its next use, and never stops the session.
   */
  ready(workspace: Workspace): Promise<void> {
    if (workspace.kind !== 'local' || this.closed) return Promise.resolve();
    let entry = this.workspaces.get(workspace.id);
    if (!entry) {
      const handles = this.handlesOf(workspace);
      const started = Promise.all(handles.map((h) => h.ensure().catch(() => undefined))).then(() => undefined);
      entry = { ready: started, handles };
      this.workspaces.set(workspace.id, entry);
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, MCP_READY_WAIT_MS);
      timer.unref();
    });
    return Promise.race([entry.ready, waited]).finally(() => clearTimeout(timer));
  }

  /** The names of the servers a workspace has started so far. */
  servers(workspaceId: string): string[] {
    return this.workspaces.get(workspaceId)?.handles.map((h) => h.name) ?? [];
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    const all = [...this.workspaces.values()].flatMap((w) => w.handles);
    this.workspaces.clear();
    await Promise.all(all.map((h) => h.dispose()));
  }

  /**
   * The servers a local workspace names: the home config's, and its own
   * `.berth/mcp.json`'s in place of a home one of the same name. An external
   * agent is given these to start itself (docs/agents.md).
   */
  specs(workspace: LocalWorkspace): McpServerSpec[] {
    let own: McpServerSpec[] = [];
    try {
      own = loadWorkspaceMcpServers(workspace.root);
    } catch (err) {
      this.deps.log.warn({ workspace: workspace.id, err: (err as Error).message }, 'the workspace MCP file is unusable; its servers are not started');
    }
    const byName = new Map<string, McpServerSpec>();
    for (const spec of [...this.deps.homeServers, ...own]) byName.set(spec.name, spec);
    return [...byName.values()];
  }

  private handlesOf(workspace: LocalWorkspace): ServerHandle[] {
    const { registry, log } = this.deps;
    return this.specs(workspace).map((spec) => {
      const appId = mcpApplicationId(spec.name);
      return new ServerHandle({
        spec,
        launch: spec.transport === 'stdio' ? this.deps.launchFor(workspace, spec) : undefined,
        log: log.child({ workspace: workspace.id }),
        onCatalog: (tools) => {
          try {
            registry.publish(workspace.id, appId, tools);
          } catch (err) {
            log.warn({ mcpServer: spec.name, err: (err as Error).message }, 'mcp catalog refused');
          }
        },
        onDown: () => registry.disconnect(workspace.id, appId),
      });
    });
  }
}
