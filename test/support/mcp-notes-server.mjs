#!/usr/bin/env node
// A small MCP server for the tests, on the official SDK's low-level server so each tool's JSON
// Schema is sent exactly as written. Its effects land in $NOTES_DIR, so a test can count them.
//
//   node mcp-notes-server.mjs              stdio
//   node mcp-notes-server.mjs --http       streamable HTTP on a loopback port (prints `listening <url>`)
//
// $MCP_TEST_MODE: `hang` never answers initialize; `many` lists 10,000 extra tools; `badschema`
// adds a tool whose input schema is not JSON Schema.
import { appendFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const dir = process.env.NOTES_DIR ?? process.cwd();
const mode = process.env.MCP_TEST_MODE ?? '';
const text = (t) => ({ content: [{ type: 'text', text: t }] });

const TOOLS = [
  {
    name: 'echo',
    description: 'Says the text back',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'write_note',
    description: 'Writes a note file',
    inputSchema: { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z]+$' }, text: { type: 'string' } }, required: ['name', 'text'] },
  },
  {
    name: 'wipe_notes',
    description: 'Deletes every note',
    inputSchema: { type: 'object', properties: {} },
    annotations: { destructiveHint: true },
  },
  { name: 'crash', description: 'Exits the server at once', inputSchema: { type: 'object', properties: {} } },
  { name: 'fail', description: 'Always reports an error', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
];
if (mode === 'badschema') TOOLS.push({ name: 'broken', description: 'bad schema', inputSchema: { type: 'nonsense-type' } });
if (mode === 'many') for (let i = 0; i < 10_000; i++) TOOLS.push({ name: `extra_${i}`, description: 'x', inputSchema: { type: 'object' } });

function makeServer() {
  const server = new Server({ name: 'notes', version: '1.0.0' }, { capabilities: { tools: {}, resources: {}, prompts: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: 'note://readme', name: 'readme', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
    contents: [{ uri: request.params.uri, mimeType: 'text/plain', text: `the text of ${request.params.uri}` }],
  }));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [{ name: 'summarise', arguments: [{ name: 'topic' }] }] }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Summarise ${request.params.arguments?.topic ?? 'everything'}` } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    appendFileSync(join(dir, 'calls.log'), `${request.params.name}\n`);
    switch (request.params.name) {
      case 'echo':
        return text(`echo: ${args.text}`);
      case 'write_note':
        writeFileSync(join(dir, `${args.name}.note`), String(args.text));
        return { ...text(`wrote ${args.name}`), structuredContent: { written: args.name } };
      case 'wipe_notes':
        for (const f of readdirSync(dir)) if (f.endsWith('.note')) rmSync(join(dir, f));
        return text('wiped');
      case 'crash':
        process.exit(3);
      case 'fail':
        return { ...text('it went wrong on purpose'), isError: true };
      default:
        return { ...text(`unknown tool ${request.params.name}`), isError: true };
    }
  });
  return server;
}

if (mode === 'hang') {
  process.stdin.resume(); // reads and never answers
} else if (process.argv.includes('--http')) {
  const http = createServer(async (req, res) => {
    // Stateless: one server and transport per request, as the SDK's stateless example does.
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${http.address().port}/mcp`));
} else {
  await makeServer().connect(new StdioServerTransport());
  process.stderr.write('notes server ready on stdio\n');
}
