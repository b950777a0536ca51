import { randomUUID } from 'node:crypto';
import type { MessagingService } from '../messaging/service.js';
import { BerthError } from '../protocol/errors/index.js';
import { policyAllows, type ToolOutcome } from '../protocol/tools/types.js';
import type { Session } from '../sessions/session.js';
import type { ApplicationToolRegistry } from '../tools/application-registry.js';
import { mcpToolOf, type McpContent, type McpResult, type McpTool } from './shapes.js';
import { TAB_TOOLS, tabRequest, tabResult } from './tabs.js';

/** The call that runs an application's tool through the session (docs/gateway.md `workspace_tool`). */
const APPLICATION_CALL = 'workspace_tool';

export interface CatalogDeps {
  readonly messaging: Pick<MessagingService, 'ask'>;
  readonly applications: Pick<ApplicationToolRegistry, 'list'>;
}

/** What an MCP client's call becomes: a module operation, or a tool call the session decides. */
type Route = { kind: 'tab' } | { kind: 'session' } | { kind: 'application' };

/**
 * Everything an MCP client speaking for one session sees and calls (issue 15):
 * the tab tools (the module protocol, answered by the messaging core as the
 * session's tab), the session's own tools under its approval mode's guard
 * (the workspace tools, MCP servers' tools), and the connected applications'
 * tools of its workspace, each listed under its own name. Every call but a
 * tab operation goes through `Session.callTool`, the path a turn's calls take:
 * guard, permission request on the session's stream, receipt, events. A tab
 * token scopes it all: nothing here names another session or workspace.
 */
export class SessionMcpCatalog {
  constructor(
    private readonly deps: CatalogDeps,
    private readonly session: Session,
  ) {}

  list(): McpTool[] {
    return [...this.routes().values()].map((r) => r.tool);
  }

  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpResult> {
    const route = this.routes().get(name);
    if (!route) throw new BerthError('unknown_tool', `No tool named ${name} for this session; list the tools to see them`, { tool: name });
    if (route.kind === 'tab') return tabResult(await this.deps.messaging.ask(this.session.id, tabRequest(name, args)!));
    const toolCallId = `mcp_${randomUUID()}`;
    const call =
      route.kind === 'session' ? { toolCallId, name, args } : { toolCallId, name: APPLICATION_CALL, args: { name, arguments: args } };
    return resultOf(await this.session.callTool(call, { signal }));
  }

  /** Each listed name and where its call goes; the first claim on a name wins (tabs, then the session's, then applications'). */
  private routes(): Map<string, Route & { tool: McpTool }> {
    const routes = new Map<string, Route & { tool: McpTool }>();
    for (const tool of TAB_TOOLS) routes.set(tool.name, { kind: 'tab', tool });
    for (const d of this.session.toolDefinitions()) {
      if (!routes.has(d.name)) routes.set(d.name, { kind: 'session', tool: mcpToolOf(d) });
    }
    const guard = this.session.guard;
    for (const t of this.deps.applications.list(this.session.workspace.id)) {
      if (!routes.has(t.name) && policyAllows(guard, t.policy)) routes.set(t.name, { kind: 'application', tool: mcpToolOf(t) });
    }
    return routes;
  }
}

/** A settled call as an MCP tool result: its content (or its value as JSON text), a failure as `isError` with the code. */
export function resultOf(outcome: ToolOutcome): McpResult {
  if (!outcome.ok) {
    const { code, message } = outcome.error;
    return { content: [{ type: 'text', text: `${code}: ${message}` }], structuredContent: { error: outcome.error }, isError: true };
  }
  const { value, content } = outcome.result;
  const blocks: McpContent[] = (content ?? []).map((c) => ({ ...c }));
  if (blocks.length === 0) blocks.push({ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) ?? '' });
  const structured = typeof value === 'object' && value !== null && !Array.isArray(value) ? { structuredContent: value as Record<string, unknown> } : {};
  return { content: blocks, ...structured, isError: false };
}
