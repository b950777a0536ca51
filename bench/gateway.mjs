// `gateway` — round trips through one gateway channel (seed 000, issue 5). Berth only: no peer has
// a channel to compare with. B is Berth's own daemon started in this process from dist/ (so a call
// goes through B's real tool layer: schema, guard, B's receipts, the hub and its journal, the
// WebSocket); A is `berth connect` from dist/ in a child process on loopback, with its receipts
// under its own home. Two calls are measured:
//   read  — workspace_read of a 1 KB file: no receipt on either side (only B's outgoing-call journal);
//   write — workspace_write creating a new 1 KB file: B's receipt, B's journal and A's receipt
//           (SQLite, WAL) around the effect.
// Each is also run on a local workspace of the same B (no channel), for the channel's own cost.
// Latency: calls one at a time (median, p90, p99). Throughput: 4 callers at once (seed 000's
// in-flight limit per workspace), calls per second.
//
//   npm run build && node bench/gateway.mjs [--quick]     (or: npm run bench -- gateway)
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

export const name = 'gateway';
export const description = 'gateway channel round trips on loopback: latency and calls/s, read (no receipts) vs journaled write';

const WORKSPACE_ID = 'bench';
const INTENTION = 'benchmark the channel';
/** A's first reconnect and readiness wait. */
const READY_TIMEOUT_MS = 60_000;

const dist = (rel) => import(pathToFileURL(join(berthDir(), 'dist', rel)).href);

export async function run({ quick = false } = {}) {
  const samples = quick ? 200 : 2000;
  const warmup = quick ? 50 : 300;
  const throughputCalls = quick ? 400 : 4000;
  const scratch = mkdtempSync(join(tmpdir(), 'berth-bench-gateway-'));
  const unregister = registerCleanup(() => rmSync(scratch, { recursive: true, force: true }));
  const [{ resolveConfig }, { startDaemon }, { silentLogger }, { allowWithoutAsking }] = await Promise.all([
    dist('config/config.js'),
    dist('daemon.js'),
    dist('log.js'),
    dist('tools/permission.js'),
  ]);
  const local = join(scratch, 'b-workspace');
  const project = join(scratch, 'a-project');
  for (const dir of [local, project, join(scratch, 'b-home'), join(scratch, 'a-home')]) mkdirSync(dir, { recursive: true });
  const kilobyte = 'x'.repeat(1023) + '\n';
  writeFileSync(join(local, 'one-kb.txt'), kilobyte);
  writeFileSync(join(project, 'one-kb.txt'), kilobyte);

  const config = resolveConfig(
    { port: 0, hostname: '127.0.0.1', home: join(scratch, 'b-home'), workspaces: [local], remoteWorkspaces: [WORKSPACE_ID], remoteIntentions: { [WORKSPACE_ID]: INTENTION }, logLevel: 'silent', modelServices: [] },
    {},
  );
  const b = await startDaemon({ config, log: silentLogger() });
  let owner;
  try {
    const tokenFile = join(scratch, 'a-home', 'channel.token');
    writeFileSync(tokenFile, b.core.tokens.createChannelToken(WORKSPACE_ID).token, { mode: 0o600 });
    owner = await startOwnerProcess(b.url, project, join(scratch, 'a-home'), tokenFile);

    const sessionId = randomUUID();
    const setFor = (workspace) =>
      b.core.tools.toolSet({ workspace, sessionId, namespace: `session:${sessionId}`, permission: allowWithoutAsking });
    const targets = {
      channel: setFor(b.core.workspaces.byId(WORKSPACE_ID)),
      local: setFor(b.core.workspaces.primary()),
    };
    let n = 0;
    const calls = {
      read: () => ({ name: 'workspace_read', args: { path: 'one-kb.txt' } }),
      write: () => ({ name: 'workspace_write', args: { path: `w/${++n}.txt`, content: kilobyte, expectedSha256: null } }),
    };
    const once = async (set, kind) => {
      const c = calls[kind]();
      const outcome = await set.call({ callId: `bench-${++n}`, name: c.name, args: c.args });
      if (!outcome.ok) throw new Error(`${kind} failed: ${outcome.error.code} ${outcome.error.message}`);
    };

    const rows = [];
    for (const kind of ['read', 'write']) {
      for (const where of ['channel', 'local']) {
        const set = targets[where];
        for (let i = 0; i < warmup; i++) await once(set, kind);
        const latencies = [];
        for (let i = 0; i < samples; i++) {
          const t0 = process.hrtime.bigint();
          await once(set, kind);
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        const started = process.hrtime.bigint();
        let left = throughputCalls;
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            while (left-- > 0) await once(set, kind);
          }),
        );
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        rows.push({ kind, where, ...summarize(latencies), p99: quantile(latencies, 0.99), callsPerSecond: throughputCalls / seconds });
      }
    }
    const text = formatTable(
      ['call', 'through', 'median ms', 'p90 ms', 'p99 ms', 'calls/s (4 in flight)', 'samples'],
      rows.map((r) => [r.kind, r.where, round(r.median), round(r.p90), round(r.p99), round(r.callsPerSecond), r.n]),
    );
    return { text, json: { samples, warmup, throughputCalls, rows: rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v]))) } };
  } finally {
    await owner?.stop();
    await b.close();
    rmSync(scratch, { recursive: true, force: true });
    unregister();
  }
}

/** `berth connect` from dist/, ready once it prints `channel ready`; stop() ends it and waits. */
async function startOwnerProcess(url, project, home, tokenFile) {
  const args = [join(berthDir(), 'bin', 'berth.js'), 'connect', url, '--workspace-id', WORKSPACE_ID, '--project', project, '--intention', INTENTION, '--token-file', tokenFile, '--home', home, '--approve', 'critical'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const unregister = registerCleanup(stop);
  let err = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`berth connect was not ready within ${READY_TIMEOUT_MS} ms:\n${err}`)), READY_TIMEOUT_MS);
    child.stderr.on('data', (d) => {
      err = (err + d.toString()).slice(-16_384);
      if (err.includes('channel ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => reject(new Error(`berth connect exited (${code}) before it was ready:\n${err}`)));
  });
  // Status lines (one per call) are read and dropped, so a full pipe never stalls A.
  return {
    stop: async () => {
      await stop();
      unregister();
    },
  };
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
