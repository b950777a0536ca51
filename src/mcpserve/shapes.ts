import type { ToolDefinition } from '../protocol/tools/types.js';

/**
 * The few MCP shapes Berth's MCP server produces (the `tools/list` entry and
 * the `tools/call` result of the MCP specification), named here so the
 * catalog code does not load the SDK.
 */
export interface McpTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations?: object;
}

export type McpContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

export interface McpResult {
  content: McpContent[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

/** A Berth tool definition as an MCP client lists it: its policy told through the standard hints where it has none of its own. */
export function mcpToolOf(d: ToolDefinition): McpTool {
  return {
    name: d.name,
    ...(d.title !== undefined ? { title: d.title } : {}),
    description: d.description,
    inputSchema: d.inputSchema as Record<string, unknown>,
    annotations: d.annotations ?? { readOnlyHint: d.policy === 'read', destructiveHint: d.policy === 'critical' },
  };
}
