// `toolproto` — the tool protocol's round trip (seed 003, issue 7). Berth only: the peer has no tool
// protocol. The daemon is Berth started in this process from dist/; the application is `berth/app`
// from dist/ in a child process (bench/lib/toolproto-app.mjs) connected over loopback WebSocket.
// Three ways of calling a trivial tool are measured:
//   tool.call      — the daemon's raw line to the app (ApplicationLink.call): envelope out, handler,
//                    tool.result back, with the app's own schema and availability checks;
//   agent read     — `workspace_tool` through the executor as a session calls it: the daemon's schema,
//                    guard and availability checks on top (read policy: no receipt);
//   agent write    — the same with a write tool: the receipt is journaled (SQLite) around the call.
// Latency: calls one at a time (median, p90, p99). Throughput: 1 and 8 callers at once, calls/s.
//
//   npm run build && node bench/toolproto.mjs [--quick]     (or: npm run bench -- toolproto)
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { berthDir } from './berth.mjs';
import { startDaemonProcess } from './lib/daemon-process.mjs';
import { fromDist, startInProcessBerth } from './lib/in-process-berth.mjs';
import { formatTable } from './lib/report.mjs';
import { measureLatency, measureThroughput } from './lib/round-trips.mjs';
import { isMain, runStandalone } from './lib/standalone.mjs';
import { round, roundNumbers } from './lib/stats.mjs';

export const name = 'toolproto';
export const description = 'tool protocol round trips on loopback: raw tool.call, and workspace_tool read/write as agents call it';

const READY_TIMEOUT_MS = 30_000;

export async function run({ quick = false } = {}) {
  const samples = quick ? 300 : 3000;
  const warmup = quick ? 100 : 500;
  const throughputCalls = quick ? 1000 : 10_000;
  const { allowWithoutAsking } = await fromDist('tools/permission.js');
  const berth = await startInProcessBerth('toolproto', (scratch) => ({ home: join(scratch, 'home'), workspaces: [join(scratch, 'workspace')] }));
  const { daemon, scratch } = berth;
  let app;
  try {
    const tokenFile = join(scratch, 'app.token');
    writeFileSync(tokenFile, (await daemon.core.tokens.createAppToken('bench', 'write')).token, { mode: 0o600 });
    app = await startApp(daemon.url, tokenFile);
    const primary = daemon.core.workspaces.primary();
    const link = await waitFor(() => daemon.core.tools.applications.list(primary.id).length === 2 && daemon.core.tools.applications.link(primary.id, 'bench'));
    const sessionId = randomUUID();
    const agent = daemon.core.tools.toolSet({ workspace: primary, sessionId, namespace: `session:${sessionId}`, permission: allowWithoutAsking });
    let n = 0;
    const ways = {
      'tool.call': () => link.call('bench.echo', { text: 'ping' }),
      'agent read': () => agent.call({ callId: `read-${++n}`, name: 'workspace_tool', args: { name: 'bench.echo', arguments: { text: 'ping' } } }),
      'agent write': () => agent.call({ callId: `write-${++n}`, name: 'workspace_tool', args: { name: 'bench.count', arguments: { text: 'ping' } } }),
    };
    const once = async (way) => {
      const outcome = await ways[way]();
      if (!outcome.ok) throw new Error(`${way} failed: ${outcome.error.code} ${outcome.error.message}`);
    };
    const rows = [];
    for (const way of Object.keys(ways)) {
      const call = () => once(way);
      const latency = await measureLatency(call, { warmup, samples });
      const callsPerSecond1 = await measureThroughput(call, { callers: 1, calls: throughputCalls });
      const callsPerSecond8 = await measureThroughput(call, { callers: 8, calls: throughputCalls });
      rows.push({ way, ...latency, callsPerSecond1, callsPerSecond8 });
    }
    const text = formatTable(
      ['call', 'median ms', 'p90 ms', 'p99 ms', 'CPU µs/call', 'calls/s (1 at a time)', 'calls/s (8 in flight)', 'samples'],
      rows.map((r) => [r.way, round(r.median), round(r.p90), round(r.p99), round(r.cpuUs), round(r.callsPerSecond1), round(r.callsPerSecond8), r.n]),
    );
    return { text, json: { samples, warmup, throughputCalls, rows: rows.map(roundNumbers) } };
  } finally {
    await app?.stop();
    await berth.close();
  }
}

async function waitFor(check) {
  for (;;) {
    const value = check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The app from dist/ in its own process, ready once it prints `app ready`. */
function startApp(url, tokenFile) {
  return startDaemonProcess({
    name: 'the app',
    command: process.execPath,
    args: [join(berthDir(), 'bench', 'lib', 'toolproto-app.mjs'), berthDir(), url, tokenFile],
    ready: /app ready/,
    timeoutMs: READY_TIMEOUT_MS,
  });
}

if (isMain(import.meta.url)) await runStandalone({ name, description, run });
