#!/usr/bin/env node
// The MCP server of the `mcp` benchmark: one read tool, `echo`, on stdio, on the official SDK's
// low-level server, answering at once, so a measured call is the MCP round trip itself.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'bench-echo', version: '1' }, { capabilities: { tools: {} } });
const echo = {
  name: 'echo',
  description: 'Says the text back',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  annotations: { readOnlyHint: true },
};
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [echo] }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: String(request.params.arguments?.text ?? '') }] }));
await server.connect(new StdioServerTransport());
