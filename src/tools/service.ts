import type { Clock } from '../clock.js';
import type { Workspace } from '../workspace/types.js';
import { ApplicationToolRegistry } from './application-registry.js';
import { availabilityOf } from '../protocol/tools/definitions.js';
import { FULL_ACCESS, guardPermits, lowerGuard, type ToolGuard } from '../protocol/tools/guard.js';
import { allowWithoutAsking, type AskHook, type PermissionHook } from './permission.js';
import type { ReceiptJournal } from './receipt-journal.js';
import { ToolSet } from './tool-set.js';
import type { OwnerQuestion, Policy, Tool, ToolDefinition, ToolOutcome } from './types.js';
import { workspaceToolBatchTool } from './workspace-tool-batch.js';
import { workspaceToolTool, workspaceToolsTool } from './workspace-tools.js';

/** The category of tools an MCP server publishes (`mcp:<server>`); they join session catalogs directly. */
export const MCP_CATEGORY_PREFIX = 'mcp:';

/** The tools that run where a workspace lives: the local builtins, or the remote owner's through a channel. */
export type HostToolsProvider = (workspace: Workspace) => readonly Tool[];

export interface ToolServiceDeps {
  readonly journal: ReceiptJournal;
  readonly clock: Clock;
  /** The daemon's own maximum; callers can only lower it. Defaults to full access. */
  readonly guard?: ToolGuard;
  readonly applications?: ApplicationToolRegistry;
}

export interface ToolSetOptions {
  readonly workspace: Workspace;
  readonly sessionId: string | null;
  /**
   * The receipt id space, by convention `session:<id>`, `gateway:<workspaceId>`
   * or `app:<name>`: call ids never collide across callers.
   */
  readonly namespace: string;
  /** The caller's own maximum (approval mode, token scope); lowers the daemon guard, never raises it. */
  readonly maxPolicy?: Policy | null;
  readonly permission: PermissionHook;
  readonly ask?: AskHook;
}

/** A driver's tool call as a session hands it over (agents/driver.ts `DriverToolCall`). */
export interface SessionToolCall {
  readonly toolCallId: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** What a session lends each call: its current guard, its cancel signal, and its people. */
export interface SessionCallOptions {
  readonly guard: Policy;
  readonly signal: AbortSignal;
  readonly permission: PermissionHook;
  ask(question: OwnerQuestion): Promise<string>;
}

/** The tool layer as a session sees it (src/sessions/ports.ts names it `SessionTools`). */
export interface SessionToolAccess {
  definitions(guard: Policy): readonly ToolDefinition[];
  run(call: SessionToolCall, options: SessionCallOptions): Promise<ToolOutcome>;
}

/** One row of `GET /workspace/tools` (OpenAPI `WorkspaceTool`, docs/client-api.md §11.7). */
export interface ToolSummary {
  readonly name: string;
  readonly displayName?: string;
  readonly description: string;
  readonly enabled: boolean;
}

/**
 * The tool layer on the Core: which tools a workspace has, and tool sets that
 * run them for one caller under one guard through the executor.
 *
 * A local workspace's set is its host tools (the gateway builtins, plugged
 * in with `setHostTools('local', …)`) plus `workspace_tools`/`workspace_tool`
 * over the application registry. A remote workspace's set is whatever its
 * host provider gives (the owner runs all gateway tools, these two included).
 */
export class ToolService {
  readonly applications: ApplicationToolRegistry;
  private readonly guard: ToolGuard;
  private readonly hosts = new Map<Workspace['kind'], HostToolsProvider>();
  private sessionTools: HostToolsProvider | null = null;

  constructor(private readonly deps: ToolServiceDeps) {
    this.applications = deps.applications ?? new ApplicationToolRegistry();
    this.guard = deps.guard ?? FULL_ACCESS;
  }

  /** Plugs in the tools of one kind of workspace; a later call replaces the earlier provider. */
  setHostTools(kind: Workspace['kind'], provider: HostToolsProvider): void {
    this.hosts.set(kind, provider);
  }

  /**
   * Plugs in tools that act as the calling session (the module protocol's
   * `tabs_*`): only session tool sets include them, never the workspace's own
   * list or a gateway/application caller.
   */
  setSessionTools(provider: HostToolsProvider): void {
    this.sessionTools = provider;
  }

  toolSet(options: ToolSetOptions): ToolSet {
    const guard = lowerGuard(this.guard, options.maxPolicy);
    const { workspace } = options;
    const tools = this.toolsFor(workspace, guard);
    if (options.sessionId !== null && this.sessionTools) tools.push(...this.sessionTools(workspace));
    return new ToolSet(
      tools,
      {
        guard,
        permission: options.permission,
        ...(options.ask ? { ask: options.ask } : {}),
        journal: this.deps.journal,
        clock: this.deps.clock,
        namespace: options.namespace,
        workspace,
        sessionId: options.sessionId,
      },
      () => this.deps.clock.now(),
    );
  }

  /**
   * A session's access: receipts in the `session:<id>` namespace, the guard
   * and permission hook the session holds at each call (its approval mode may
   * change between calls), `workspace` being where its tools run.
   */
  forSession(workspace: Workspace, sessionId: string): SessionToolAccess {
    const namespace = `session:${sessionId}`;
    return {
      definitions: (guard) =>
        this.toolSet({ workspace, sessionId, namespace, maxPolicy: guard, permission: allowWithoutAsking }).definitions(),
      run: (call, o) =>
        this.toolSet({ workspace, sessionId, namespace, maxPolicy: o.guard, permission: o.permission, ask: (q) => o.ask(q) }).call(
          { callId: call.toolCallId, name: call.name, args: call.args },
          o.signal,
        ),
    };
  }

  /** The workspace's tools under the daemon guard, as `GET /workspace/tools` lists them, sorted by name. */
  summaries(workspace: Workspace): ToolSummary[] {
    return this.toolsFor(workspace, this.guard)
      .filter((t) => guardPermits(this.guard, t))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((t) => ({
        name: t.name,
        ...(t.title !== undefined ? { displayName: t.title } : {}),
        description: t.description,
        enabled: availabilityOf(t).available,
      }));
  }

  private toolsFor(workspace: Workspace, guard: ToolGuard): Tool[] {
    const tools = [...(this.hosts.get(workspace.kind)?.(workspace) ?? [])];
    if (workspace.kind === 'local') {
      const scope = { applications: this.applications, workspaceId: workspace.id, guard };
      tools.push(workspaceToolsTool(scope), workspaceToolTool(scope), workspaceToolBatchTool(scope));
      // MCP servers' tools join the catalog under their own namespaced names (src/mcp/hub.ts).
      tools.push(...this.applications.list(workspace.id).filter((t) => t.category.startsWith(MCP_CATEGORY_PREFIX)));
    }
    return tools;
  }
}
