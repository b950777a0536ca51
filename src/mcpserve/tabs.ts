import { MESSAGING_TOOL_DEFINITIONS } from '../messaging/index.js';
import { TABS_INBOX_TOOL, TABS_LIST_TOOL, TABS_SEND_TOOL } from '../messaging/header.js';
import type { Answer, Request } from '../messaging/types.js';
import { mcpToolOf, type McpResult, type McpTool } from './shapes.js';

/** `tabs_peek`: only for agents outside Berth, whose messages never arrive as a prompt. */
const TABS_PEEK: McpTool = {
  name: 'tabs_peek',
  description: 'Show the messages other tabs sent you that are waiting, without taking them.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true },
};

/**
 * The module protocol's operations as MCP tools (docs/modules.md), for an
 * agent Berth does not host. The daemon's MCP endpoint answers them through
 * the messaging core, `berth mcp` without a daemon address through the
 * module socket; both use these names, schemas and this mapping.
 */
export const TAB_TOOLS: readonly McpTool[] = [
  ...MESSAGING_TOOL_DEFINITIONS.map(mcpToolOf),
  TABS_PEEK,
];

/** The module operation a tab tool asks, or undefined when the name is not a tab tool. */
export function tabRequest(name: string, args: Record<string, unknown>): Request | undefined {
  switch (name) {
    case TABS_LIST_TOOL:
      return { op: 'list' };
    case TABS_SEND_TOOL:
      return { op: 'send', tab: String(args.tab), text: String(args.text), kind: typeof args.kind === 'string' ? (args.kind as never) : 'info' };
    case TABS_INBOX_TOOL:
      return { op: 'inbox' };
    case TABS_PEEK.name:
      return { op: 'peek' };
    default:
      return undefined;
  }
}

/** The module answer as a tool result: its words, the whole answer as structured content, a refusal as an error. */
export function tabResult(answer: Answer): McpResult {
  return { content: [{ type: 'text', text: answer.text }], structuredContent: answer as unknown as Record<string, unknown>, isError: !answer.ok };
}
