import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { asBerthError } from '../protocol/errors/index.js';
import type { McpResult, McpTool } from './shapes.js';

/** What an MCP server of Berth's serves: a list of tools and their calls (src/mcpserve/catalog.ts, or the tab tools alone). */
export interface McpCatalog {
  list(): McpTool[] | Promise<McpTool[]>;
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpResult>;
}

/** The server's name and version in `initialize`. */
export const SERVER_INFO = { name: 'berth', version: '1' };

let validator: AjvJsonSchemaValidator | undefined;

/**
 * One schema validator for every server: the stateless endpoint makes a server
 * per request, and each would otherwise build an Ajv instance of its own (most
 * of a call's time in the bench).
 */
function sharedValidator(): AjvJsonSchemaValidator {
  validator ??= new AjvJsonSchemaValidator();
  return validator;
}

/**
 * The MCP server Berth offers on every transport (the daemon's streamable
 * HTTP endpoint, `berth mcp` on stdio): `tools/list` and `tools/call` over a
 * catalog. A refused call (an unknown tool, a session that closed) is a
 * JSON-RPC error; a call that ran and failed is a result with `isError`.
 */
export function createMcpServer(catalog: McpCatalog, signal?: AbortSignal): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, jsonSchemaValidator: sharedValidator() });
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
