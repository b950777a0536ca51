import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { asBerthError } from '../protocol/errors/index.js';
import type { McpResult, McpTool } from './shapes.js';

/** What an MCP server of Berth's serves: a list of tools and their calls (src/mcpserve/catalog.ts, or the tab tools alone). */
export interface McpCatalog {
  list(): McpTool[] | Promise<McpTool[]>;
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpResult>;
}

/** The server's name and version in `initialize`. */
export const SERVER_INFO = { name: 'berth', version: '1' };

/**
 * The MCP server Berth offers on every transport (the daemon's streamable
 * HTTP endpoint, `berth mcp` on stdio): `tools/list` and `tools/call` over a
 * catalog. A refused call (an unknown tool, a session that closed) is a
 * JSON-RPC error; a call that ran and failed is a result with `isError`.
 */
export function createMcpServer(catalog: McpCatalog, signal?: AbortSignal): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await catalog.list() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    const stop = signal ? AbortSignal.any([extra.signal, signal]) : extra.signal;
    try {
      return (await catalog.call(request.params.name, args, stop)) as unknown as Record<string, unknown>;
    } catch (err) {
      const e = asBerthError(err);
      throw new McpError(e.status < 500 ? ErrorCode.InvalidParams : ErrorCode.InternalError, `${e.code}: ${e.message}`);
    }
  });
  return server;
}
