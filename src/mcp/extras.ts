import type { McpServerSpec } from '../config/mcp-servers.js';
import type { Tool, ToolResult } from '../tools/types.js';
import { mcpToolName } from './tools.js';
import { MCP_CATEGORY_PREFIX } from '../tools/service.js';

/** How the extra tools reach the server (through its handle, so a stopped server starts again). */
export type McpAsk = (
  method: 'resources/list' | 'resources/read' | 'prompts/list' | 'prompts/get',
  params: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<ToolResult>;

const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  additionalProperties: false,
});

/**
 * A server's resources and prompts as read tools of the agent (issue 15: list
 * and read at least), only when its `initialize` answer offers them:
 * `mcp__<server>__resources_list` / `__resource_read` and
 * `mcp__<server>__prompts_list` / `__prompt_get`.
 */
export function resourceAndPromptTools(spec: McpServerSpec, offers: { resources: boolean; prompts: boolean }, ask: McpAsk): Tool[] {
  const tool = (name: string, description: string, inputSchema: Record<string, unknown>, run: Tool['run']): Tool => ({
    name: mcpToolName(spec.name, name),
    description,
    category: `${MCP_CATEGORY_PREFIX}${spec.name}`,
    policy: 'read',
    inputSchema,
    annotations: { readOnlyHint: true },
    run,
  });
  const out: Tool[] = [];
  if (offers.resources) {
    out.push(
      tool('resources_list', `List the resources MCP server ${spec.name} offers (uri, name, mimeType).`, object({ cursor: { type: 'string' } }), (a, ctx) =>
        ask('resources/list', typeof a.cursor === 'string' ? { cursor: a.cursor } : {}, ctx.signal),
      ),
      tool('resource_read', `Read one resource of MCP server ${spec.name} by its uri.`, object({ uri: { type: 'string', maxLength: 4096 } }, ['uri']), (a, ctx) =>
        ask('resources/read', { uri: String(a.uri) }, ctx.signal),
      ),
    );
  }
  if (offers.prompts) {
    out.push(
      tool('prompts_list', `List the prompts MCP server ${spec.name} offers.`, object({ cursor: { type: 'string' } }), (a, ctx) =>
        ask('prompts/list', typeof a.cursor === 'string' ? { cursor: a.cursor } : {}, ctx.signal),
      ),
      tool(
        'prompt_get',
        `Get one prompt of MCP server ${spec.name}, filled with its arguments.`,
        object({ name: { type: 'string', maxLength: 256 }, arguments: { type: 'object', additionalProperties: { type: 'string' } } }, ['name']),
        (a, ctx) => ask('prompts/get', { name: String(a.name), ...(a.arguments ? { arguments: a.arguments } : {}) }, ctx.signal),
      ),
    );
  }
  return out;
}
