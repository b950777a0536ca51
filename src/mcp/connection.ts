import type { Readable } from 'node:stream';
import type { McpServerSpec } from '../config/mcp-servers.js';
import { BerthError } from '../protocol/errors/index.js';
import type { ToolResult } from '../tools/types.js';
import { MCP_CALL_TIMEOUT_MS, MCP_INIT_TIMEOUT_MS, MCP_MAX_LIST_PAGES } from './limits.js';
import { resultOf, type McpListedTool } from './tools.js';

/** How a stdio server is started: the program and arguments after any confinement wrapper, and its environment. */
export interface McpLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd: string;
}

export interface McpConnectionOptions {
  readonly spec: McpServerSpec;
  /** Only for stdio servers. */
  readonly launch?: McpLaunch;
  /** Each line the server writes to stderr (it goes to the daemon log). */
  onStderr(line: string): void;
  /** The connection ended without `close()` being asked for: the process died or the stream broke. */
  onLost(reason: string): void;
  /** How long `initialize` may take (default MCP_INIT_TIMEOUT_MS). */
  readonly initTimeoutMs?: number;
}

/**
 * One live connection to one MCP server, through the official SDK's client and
 * transports. Everything it asks is bounded in time; whatever the server sends
 * back is data (a result, a catalog), never something to run.
 */
export class McpConnection {
  private closing = false;

  private constructor(
    private readonly client: import('@modelcontextprotocol/sdk/client/index.js').Client,
    private readonly server: string,
    /**
     * Answers are read with the SDK's loosest result schema and checked here
     * item by item: its strict `tools/list` schema refuses the whole list for
     * one malformed tool, and one bad tool must not hide the others.
     */
    private readonly anyResult: typeof import('@modelcontextprotocol/sdk/types.js').ResultSchema,
  ) {}

  /** Starts the server (stdio) or reaches it (HTTP) and completes `initialize` within MCP_INIT_TIMEOUT_MS. */
  static async open(options: McpConnectionOptions): Promise<McpConnection> {
    const [{ Client }, { ResultSchema }, transport] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
      transportOf(options),
    ]);
    const client = new Client({ name: 'berth', version: '1' }, { capabilities: {} });
    const connection = new McpConnection(client, options.spec.name, ResultSchema);
    client.onclose = () => {
      if (!connection.closing) options.onLost('the connection closed');
    };
    const initMs = options.initTimeoutMs ?? MCP_INIT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(initMs);
    try {
      await client.connect(transport, { signal: timeout, timeout: initMs });
    } catch (err) {
      connection.closing = true;
      await client.close().catch(() => undefined);
      const why = timeout.aborted ? `did not initialize within ${initMs} ms` : `could not start: ${(err as Error).message}`;
      throw new BerthError('tool_unavailable', `MCP server ${options.spec.name} ${why}`, { server: options.spec.name });
    }
    return connection;
  }

  /** Every tool the server lists, following `nextCursor` for at most MCP_MAX_LIST_PAGES pages. */
  async listTools(): Promise<McpListedTool[]> {
    const out: McpListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MCP_MAX_LIST_PAGES; page++) {
      const answer = (await this.client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, this.anyResult, {
        timeout: MCP_INIT_TIMEOUT_MS,
      })) as { tools?: unknown; nextCursor?: unknown };
      if (!Array.isArray(answer.tools)) throw new BerthError('tool_unavailable', `MCP server ${this.server} answered tools/list without a tools array`);
      out.push(...(answer.tools as McpListedTool[]));
      cursor = typeof answer.nextCursor === 'string' && answer.nextCursor !== '' ? answer.nextCursor : undefined;
      if (!cursor) break;
    }
    return out;
  }

  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    let raw: unknown;
    try {
      raw = await scoped(signal, (inner) =>
        this.client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, this.anyResult, { signal: inner, timeout: MCP_CALL_TIMEOUT_MS }),
      );
    } catch (err) {
      if (signal.aborted) throw err;
      const message = (err as Error).message ?? String(err);
      const timedOut = /timed out|timeout/i.test(message);
      throw new BerthError(timedOut ? 'tool_timeout' : 'tool_failed', `MCP server ${this.server}: ${message}`.slice(0, 2000), {
        server: this.server,
        tool,
      });
    }
    return resultOf(this.server, tool, raw);
  }

  /** Whether the server offers resources and prompts (its `initialize` answer). */
  offers(): { readonly resources: boolean; readonly prompts: boolean } {
    const caps = this.client.getServerCapabilities();
    return { resources: caps?.resources !== undefined, prompts: caps?.prompts !== undefined };
  }

  /** `resources/list`, `resources/read`, `prompts/list`, `prompts/get`: answered as data, bounded in time. */
  async ask(method: 'resources/list' | 'resources/read' | 'prompts/list' | 'prompts/get', params: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    try {
      const raw = await scoped(signal, (inner) => this.client.request({ method, params }, this.anyResult, { signal: inner, timeout: MCP_CALL_TIMEOUT_MS }));
      const text = JSON.stringify(raw);
      return { value: raw, content: [{ type: 'text', text: text.length > 256 * 1024 ? `${text.slice(0, 256 * 1024)}\n[truncated]` : text }] };
    } catch (err) {
      if (signal.aborted) throw err;
      throw new BerthError('tool_failed', `MCP server ${this.server}: ${(err as Error).message}`.slice(0, 2000), { server: this.server, method });
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.client.close().catch(() => undefined);
  }
}

/**
 * Runs one request on a signal of its own that follows `outer`. The SDK adds an
 * abort listener to the signal of every request and never removes it; a turn's
 * signal lives for the whole turn, so passing it on would pile up one listener
 * per call.
 */
async function scoped<T>(outer: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const inner = new AbortController();
  const follow = () => inner.abort(outer.reason);
  if (outer.aborted) inner.abort(outer.reason);
  else outer.addEventListener('abort', follow, { once: true });
  try {
    return await run(inner.signal);
  } finally {
    outer.removeEventListener('abort', follow);
  }
}

async function transportOf(options: McpConnectionOptions) {
  const { spec } = options;
  if (spec.transport === 'http') {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers: { ...spec.headers } } });
  }
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const launch = options.launch!;
  const transport = new StdioClientTransport({
    command: launch.command,
    args: [...launch.args],
    env: launch.env,
    cwd: launch.cwd,
    stderr: 'pipe',
  });
  forwardLines(transport.stderr as Readable | null, options.onStderr);
  return transport;
}

/** Server stderr, line by line and each line bounded, so a chatty or binary stderr cannot flood the log. */
function forwardLines(stream: Readable | null, onLine: (line: string) => void): void {
  if (!stream) return;
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!.slice(-4096);
    for (const line of lines) if (line.trim() !== '') onLine(line.slice(0, 4096));
  });
}
