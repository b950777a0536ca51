// `mcp` — tool calls through MCP (issue 15). Berth only: the peer forwards MCP servers to its agent
// but offers no comparable call path. Berth runs in this process from dist/ with one stdio MCP
// server (bench/lib/mcp-echo-server.mjs) in its config. Measured, one call at a time:
//   local tool      — `workspace_read` of a 1 KB file through a session's tool set: the baseline;
//   mcp via berth   — `mcp__bench__echo` through the same tool set: Berth's schema, guard and
//                     executor, then the MCP round trip to the server process over stdio;
//   mcp direct      — the same `echo` called by the official SDK client straight at its own copy
//                     of the server: the MCP floor, without Berth;
//   berth mcp       — `tabs_list` asked of `berth mcp` (Berth as an MCP server, stdio) by the SDK
//                     client: MCP in, one module-socket question to the daemon, MCP out;
//   mcp endpoint    — the SDK client over streamable HTTP at the session's endpoint
//                     (`POST /session/{id}/mcp`, tab token as the bearer): `workspace_read` of the
//                     same 1 KB file through the session's decision path (guard, approval mode,
//                     events on its stream and transcript), and `tabs_list` for the tab tools.
//
//   npm run build && npm run bench -- mcp [--quick]
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { berthDir } from './berth.mjs';
import { fromDist, startInProcessBerth } from './lib/in-process-berth.mjs';
import { formatTable } from './lib/report.mjs';
import { measureLatency } from './lib/round-trips.mjs';
import { isMain, runStandalone } from './lib/standalone.mjs';
import { round, roundNumbers } from './lib/stats.mjs';

export const name = 'mcp';
export const description = "a tool call through an MCP stdio server, through berth mcp and through Berth's HTTP MCP endpoint, beside a local workspace tool";

const ECHO_SERVER = fileURLToPath(new URL('./lib/mcp-echo-server.mjs', import.meta.url));

async function sdkClient(command, args, env = {}) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'ignore' }));
  return client;
}

export async function run({ quick = false } = {}) {
  const samples = quick ? 200 : 2000;
  const warmup = quick ? 50 : 300;
  const { allowWithoutAsking } = await fromDist('tools/permission.js');
  const berth = await startInProcessBerth('mcp', (scratch) => {
    writeFileSync(join(scratch, 'one-kb.txt'), 'x'.repeat(1024));
    return {
      home: join(scratch, 'home'),
      workspaces: [scratch],
      mcpServers: [{ name: 'bench', origin: 'home', transport: 'stdio', command: process.execPath, args: [ECHO_SERVER], env: {} }],
    };
  });
  const { daemon } = berth;
  const clients = [];
  try {
    const primary = daemon.core.workspaces.primary();
    // A session starts the workspace's MCP servers (its driver waits for them); no model is needed for that.
    const created = await fetch(`${daemon.url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"sessionScope":"thread"}' });
    const { sessionId: tabSession } = await created.json();
    await waitFor(() => daemon.core.tools.applications.list(primary.id).some((t) => t.name === 'mcp__bench__echo'));
    const sessionId = randomUUID();
    const agent = daemon.core.tools.toolSet({ workspace: primary, sessionId, namespace: `session:${sessionId}`, permission: allowWithoutAsking });
    const direct = await sdkClient(process.execPath, [ECHO_SERVER]);
    clients.push(direct);
    const env = await daemon.core.messaging.externalAgentEnv(tabSession);
    const tabs = await sdkClient(process.execPath, [join(berthDir(), 'bin', 'berth.js'), 'mcp'], { ...env, BERTH_LOG_LEVEL: 'warn' });
    clients.push(tabs);
    // The same tab's token (externalAgentEnv issued it above) as the bearer of its HTTP MCP endpoint.
    const endpoint = new Client({ name: 'bench', version: '1' });
    await endpoint.connect(
      new StreamableHTTPClientTransport(new URL(`/session/${tabSession}/mcp`, daemon.url), {
        requestInit: { headers: { authorization: `Bearer ${env.BERTH_MODULE_TOKEN}` } },
      }),
    );
    clients.push(endpoint);
    let n = 0;
    const ok = (outcome, what) => {
      if (!outcome.ok) throw new Error(`${what} failed: ${outcome.error.code} ${outcome.error.message}`);
    };
    const ways = {
      'local tool (workspace_read)': async () => ok(await agent.call({ callId: `r-${++n}`, name: 'workspace_read', args: { path: 'one-kb.txt' } }), 'read'),
      'mcp via berth (mcp__bench__echo)': async () => ok(await agent.call({ callId: `m-${++n}`, name: 'mcp__bench__echo', args: { text: 'ping' } }), 'mcp'),
      'mcp direct (SDK client to the server)': async () => {
        const r = await direct.callTool({ name: 'echo', arguments: { text: 'ping' } });
        if (r.isError) throw new Error('direct echo failed');
      },
      'berth mcp (tabs_list over stdio)': async () => {
        const r = await tabs.callTool({ name: 'tabs_list', arguments: {} });
        if (r.isError) throw new Error('tabs_list failed');
      },
      'mcp endpoint (workspace_read over HTTP)': async () => {
        const r = await endpoint.callTool({ name: 'workspace_read', arguments: { path: 'one-kb.txt' } });
        if (r.isError) throw new Error(`endpoint workspace_read failed: ${JSON.stringify(r.content)}`);
      },
      'mcp endpoint (tabs_list over HTTP)': async () => {
        const r = await endpoint.callTool({ name: 'tabs_list', arguments: {} });
        if (r.isError) throw new Error('endpoint tabs_list failed');
      },
    };
    const rows = [];
    for (const [id, once] of Object.entries(ways)) rows.push({ id, ...(await measureLatency(once, { warmup, samples })) });
    const text = formatTable(
      ['call', 'median ms', 'p90 ms', 'p99 ms', 'samples'],
      rows.map((r) => [r.id, round(r.median), round(r.p90), round(r.p99), r.n]),
    );
    return { text, json: { samples, warmup, rows: rows.map(roundNumbers) } };
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    await berth.close();
  }
}

async function waitFor(check) {
  for (let i = 0; i < 3000; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the MCP server did not publish its tools');
}

if (isMain(import.meta.url)) await runStandalone({ name, description, run });
