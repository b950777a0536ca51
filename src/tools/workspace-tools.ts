import { BerthError } from '../protocol/errors/index.js';
import type { ApplicationToolRegistry } from './application-registry.js';
import { seedToolDefinition } from './builtin/seed-tools.js';
import { availabilityOf, wireRuntime } from '../protocol/tools/definitions.js';
import type { DispatchingTool } from './dispatch.js';
import { guardPermits, type ToolGuard } from '../protocol/tools/guard.js';
import type { Tool } from './types.js';

/** Where one tool set finds its application tools, and what its caller may see of them. */
export interface ApplicationScope {
  readonly applications: ApplicationToolRegistry;
  readonly workspaceId: string;
  readonly guard: ToolGuard;
}

/**
 * `workspace_tools` (docs/gateway.md): the application tools authorized for this
 * conversation, with their exact names, descriptions, policies and input
 * schemas — only those the caller's guard lets it see. Schemas are plain JSON
 * Schema here (an agent reads them directly), not the tool protocol's wire projection.
 */
export function workspaceToolsTool(scope: ApplicationScope): Tool {
  return {
    ...seedToolDefinition('workspace_tools', { policy: 'read', category: 'workspace' }),
    async run() {
      const tools = scope.applications
        .list(scope.workspaceId)
        .filter((t) => guardPermits(scope.guard, t))
        .map((t) => {
          const runtime = wireRuntime(availabilityOf(t));
          return {
            name: t.name,
            ...(t.title !== undefined ? { title: t.title } : {}),
            description: t.description,
            policy: t.policy,
            inputSchema: t.inputSchema,
            ...(runtime ? { runtime } : {}),
          };
        });
      return { value: { tools } };
    },
  };
}

/**
 * `workspace_tool {name, arguments}` (docs/gateway.md): invokes one application tool.
 * It declares `read` so it stays discoverable under every guard, but each
 * call is judged as its target's: the executor resolves the target and
 * applies the target's schema, policy, permission and receipts.
 */
export function workspaceToolTool(scope: ApplicationScope): DispatchingTool {
  return {
    ...seedToolDefinition('workspace_tool', { policy: 'read', category: 'workspace' }),
    resolveTarget(args) {
      const name = String(args.name);
      const tool = scope.applications.get(scope.workspaceId, name);
      if (!tool) {
        throw new BerthError('unknown_tool', `No application tool named ${name}; call workspace_tools to list them`, {
          tool: name,
        });
      }
      return { tool, args: args.arguments };
    },
    async run() {
      // Running it directly would skip the target's guard, permission and receipt.
      throw new BerthError('internal_error', 'workspace_tool runs only through the tool executor');
    },
  };
}
