import { BerthError } from '../../protocol/errors/index.js';
import { seedToolDefinition } from '../../tools/builtin/seed-tools.js';
import { definitionOf } from '../../protocol/tools/definitions.js';
import type { HostToolsProvider } from '../../tools/service.js';
import type { Tool, ToolDefinition } from '../../tools/types.js';
import { decodeResult } from '../../protocol/gateway/result-text.js';
import type { ChannelHub } from './hub.js';

/**
 * The gateway tool set of a remote workspace: the same definitions the local
 * workspace tools have (so B's guard, approval mode and receipts judge a remote
 * call exactly like a local one, before anything is sent), each running
 * through the workspace's gateway channel. `hub` is this daemon's hub, or in a
 * cluster the relay that finds the node holding the channel (src/cluster/gateway-relay.ts).
 *
 * `workspace_tools` and `workspace_tool` belong to the owner here: A answers
 * them from its own application tools. B cannot see what a `workspace_tool`
 * target does, so on B it counts as `critical` (asked for in every approval
 * mode that asks, journaled like any effect).
 */
export function remoteWorkspaceTools(workspaceTools: readonly ToolDefinition[], hub: Pick<ChannelHub, 'call'>): HostToolsProvider {
  const definitions: ToolDefinition[] = [
    ...workspaceTools.map(definitionOf),
    seedToolDefinition('workspace_tools', { policy: 'read', category: 'workspace' }),
    seedToolDefinition('workspace_tool', { policy: 'critical', category: 'workspace' }),
  ];
  const tools: Tool[] = definitions.map((def) => ({
    ...def,
    async run(args, ctx) {
      if (ctx.sessionId === null) {
        throw new BerthError('tool_unavailable', 'Remote workspace tools run only for a session', { tool: def.name });
      }
      const result = await hub.call(
        { workspaceId: ctx.workspace.id, sessionId: ctx.sessionId, tool: def.name, args, effectful: def.policy !== 'read' },
        ctx.signal,
      );
      return decodeResult(result);
    },
  }));
  return () => tools;
}

