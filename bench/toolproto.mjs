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
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { berthDir } from './berth.mjs';
import { registerCleanup } from './lib/cleanup.mjs';
import { formatTable, machineNote, writeResult } from './lib/report.mjs';
import { quantile, round, summarize } from './lib/stats.mjs';

export const name = 'toolproto';
export const description = 'tool protocol round trips on loopback: raw tool.call, and workspace_tool read/write as agents call it';

const READY_TIMEOUT_MS = 30_000;
const dist = (rel) => import(pathToFileURL(join(berthDir(), 'dist', rel)).href);

export async function run({ quick = false } = {}) {
  const samples = quick ? 300 : 3000;
  const warmup = quick ? 100 : 500;
  const throughputCalls = quick ? 1000 : 10_000;
  const scratch = mkdtempSync(join(tmpdir(), 'berth-bench-toolproto-'));
  const unregister = registerCleanup(() => rmSync(scratch, { recursive: true, force: true }));
  const [{ resolveConfig }, { startDaemon }, { silentLogger }, { allowWithoutAsking }] = await Promise.all([
    dist('config/config.js'),
    dist('daemon.js'),
    dist('log.js'),
    dist('tools/permission.js'),
  ]);
  const workspace = join(scratch, 'workspace');
  for (const dir of [workspace, join(scratch, 'home')]) mkdirSync(dir, { recursive: true });
  const config = resolveConfig({ port: 0, hostname: '127.0.0.1', home: join(scratch, 'home'), workspaces: [workspace], logLevel: 'silent', modelServices: [] }, {});
  const daemon = await startDaemon({ config, log: silentLogger() });
  let app;
  try {
    const tokenFile = join(scratch, 'app.token');
    writeFileSync(tokenFile, daemon.core.tokens.createAppToken('bench', 'write').token, { mode: 0o600 });
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
      for (let i = 0; i < warmup; i++) await once(way);
      const latencies = [];
      for (let i = 0; i < samples; i++) {
        const t0 = process.hrtime.bigint();
        await once(way);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      const throughput = {};
      for (const callers of [1, 8]) {
        const started = process.hrtime.bigint();
        let left = throughputCalls;
        await Promise.all(Array.from({ length: callers }, async () => { while (left-- > 0) await once(way); }));
        throughput[callers] = throughputCalls / (Number(process.hrtime.bigint() - started) / 1e9);
      }
      rows.push({ way, ...summarize(latencies), p99: quantile(latencies, 0.99), callsPerSecond1: throughput[1], callsPerSecond8: throughput[8] });
    }
    const text = formatTable(
      ['call', 'median ms', 'p90 ms', 'p99 ms', 'calls/s (1 at a time)', 'calls/s (8 in flight)', 'samples'],
      rows.map((r) => [r.way, round(r.median), round(r.p90), round(r.p99), round(r.callsPerSecond1), round(r.callsPerSecond8), r.n]),
    );
    return { text, json: { samples, warmup, throughputCalls, rows: rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v]))) } };
  } finally {
    await app?.stop();
    await daemon.close();
    rmSync(scratch, { recursive: true, force: true });
    unregister();
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
async function startApp(url, tokenFile) {
  const child = spawn(process.execPath, [join(berthDir(), 'bench', 'lib', 'toolproto-app.mjs'), berthDir(), url, tokenFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const unregister = registerCleanup(stop);
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the app was not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d.toString();
      if (out.includes('app ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => reject(new Error(`the app exited (${code}) before it was ready`)));
  });
  return { stop: async () => { await stop(); unregister(); } };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const quick = process.argv.includes('--quick');
  const machine = machineNote();
  console.log(`== ${name}: ${description}${quick ? ' (quick)' : ''}`);
  const startedAt = new Date();
  const result = await run({ quick });
  console.log(result.text);
  console.log(`\nwritten: ${writeResult(name, { benchmark: name, startedAt: startedAt.toISOString(), quick, machine, ...result.json }, startedAt)}`);
}
