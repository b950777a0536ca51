// `gateway` — round trips through one gateway channel (seed 000, issue 5). Berth only: no peer has
// a channel to compare with. B is Berth's own daemon started in this process from dist/ (so a call
// goes through B's real tool layer: schema, guard, B's receipts, the hub and its journal, the
// WebSocket); A is `berth connect` from dist/ in a child process on loopback, with its receipts
// under its own home. Two calls are measured:
//   read  — workspace_read of a 1 KB file: no receipt and no journal row on either side;
//   write — workspace_write creating a new 1 KB file: B's receipt, B's journal and A's receipt
//           (SQLite, WAL) around the effect.
// Each is also run on a local workspace of the same B (no channel), for the channel's own cost, and
// the bare wire beside them: a WebSocket between this process and a child in A's place that answers
// at once (bench/lib/wire.mjs), with frames of the channel's sizes, for what any two processes pay.
// B's local workspace is A's project, so both rows read the same file and make their new files in the
// same directory: on an ext4 without a journal (this VM's) each new inode costs a scan over the
// recently deleted inodes of its directory's block group (the kernel's `recently_deleted()`, up to
// half of all CPU in a write row right after another run deleted its 30,000 files), and two
// directories in two groups made the two write rows pay that by different amounts.
// Every row runs in two placements: `apart`, B (this process) on CPU 0 and A on CPU 1, as the two
// ends of a channel on two machines would; `shared`, both free to run on every CPU. Left to the
// scheduler, this VM moves the two ends between its CPUs so that whole runs come out at twice the
// CPU per call for the same build (0.31 or 0.62 ms a read, run after run, either build); pinned,
// neither end is moved and the run measures the code.
// Latency: calls one at a time (median, p90, p99). Throughput: 4 callers at once (seed 000's
// in-flight limit per workspace), calls per second.
//
//   npm run build && node bench/gateway.mjs [--quick]     (or: npm run bench -- gateway [--profile])
// `--profile` writes A's CPU profile (`node --cpu-prof`) to <dir>/owner and B's — this process, over
// the timed rows only — to <dir>/host.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { berthDir } from './berth.mjs';
import { startDaemonProcess } from './lib/daemon-process.mjs';
import { fromDist, startInProcessBerth } from './lib/in-process-berth.mjs';
import { ALL_CPUS, pin, pinningUnavailable } from './lib/cpu-pinning.mjs';
import { startWire } from './lib/wire.mjs';
import { cpuMicros } from './lib/proctree.mjs';
import { formatTable } from './lib/report.mjs';
import { measureLatency, measureThroughput } from './lib/round-trips.mjs';
import { isMain, runStandalone } from './lib/standalone.mjs';
import { round, roundNumbers } from './lib/stats.mjs';

export const name = 'gateway';
export const description = 'gateway channel round trips on loopback: latency and calls/s, read (no receipts) vs journaled write';

const WORKSPACE_ID = 'bench';
const INTENTION = 'benchmark the channel';
/** A's first reconnect and readiness wait. */
const READY_TIMEOUT_MS = 60_000;

export async function run({ quick = false, profileDir } = {}) {
  const samples = quick ? 200 : 2000;
  const warmup = quick ? 50 : 300;
  /** Calls of every row before any row is timed. */
  const settle = quick ? 100 : 3000;
  const throughputCalls = quick ? 400 : 4000;
  const { allowWithoutAsking } = await fromDist('tools/permission.js');
  const { callFrame } = await fromDist('gateway/host/call-making.js');
  const { encodeFrame } = await fromDist('protocol/gateway/frames.js');
  const { encodeResult } = await fromDist('protocol/gateway/result-text.js');
  const kilobyte = 'x'.repeat(1023) + '\n';
  const berth = await startInProcessBerth('gateway', (scratch) => {
    // B's local workspace is A's project (see the top of this file).
    const project = join(scratch, 'project');
    for (const dir of [join(project, 'w'), join(scratch, 'a-home')]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(project, 'one-kb.txt'), kilobyte);
    return { home: join(scratch, 'b-home'), workspaces: [project], remoteWorkspaces: [WORKSPACE_ID], remoteIntentions: { [WORKSPACE_ID]: INTENTION } };
  });
  const { daemon: b, scratch } = berth;
  const project = join(scratch, 'project');
  let owner;
  let wire;
  try {
    const tokenFile = join(scratch, 'a-home', 'channel.token');
    writeFileSync(tokenFile, (await b.core.tokens.createChannelToken(WORKSPACE_ID)).token, { mode: 0o600 });
    owner = await startOwnerProcess(b.url, project, join(scratch, 'a-home'), tokenFile, profileDir ? ['--cpu-prof', '--cpu-prof-dir', join(profileDir, 'owner')] : []);
    wire = await startWire();

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
    /** The bytes of a call's `call` frame and of its `result` frame, as B and A frame them. */
    const frameBytes = async (kind) => {
      const c = calls[kind]();
      const outcome = await targets.local.call({ callId: `bench-${++n}`, name: c.name, args: c.args });
      const id = randomUUID();
      const fields = { id, workspaceId: WORKSPACE_ID, sessionId, tool: c.name, args: JSON.stringify(c.args), effectful: kind === 'write' };
      return {
        call: Buffer.byteLength(callFrame(fields, INTENTION)),
        result: Buffer.byteLength(encodeFrame({ type: 'result', id, sessionId, result: encodeResult(outcome) })),
      };
    };

    // Every row is timed warm: a long-running daemon has compiled its call path long before,
    // and both processes' CPU per call keeps falling over the first few thousand calls.
    for (const kind of ['read', 'write']) {
      for (const where of ['channel', 'local']) for (let i = 0; i < settle; i++) await once(targets[where], kind);
    }
    const frames = { read: await frameBytes('read'), write: await frameBytes('write') };
    const bareTrip = (kind) => () => wire.roundTrip(frames[kind].call, frames[kind].result);
    for (const kind of ['read', 'write']) for (let i = 0; i < settle; i++) await bareTrip(kind)();
    const rows = [];
    const profiler = profileDir ? await startProfiler() : undefined;
    for (const placement of placements([owner.pid, wire.pid])) {
      placement.apply();
      for (const kind of ['read', 'write']) {
        for (const where of ['channel', 'local']) {
          const call = () => once(targets[where], kind);
          let ownerCpu0 = 0;
          const latency = await measureLatency(call, { warmup, samples, beforeTimed: () => (ownerCpu0 = cpuMicros(owner.pid)) });
          const ownerCpuUs = where === 'channel' ? (cpuMicros(owner.pid) - ownerCpu0) / samples : null;
          const callsPerSecond = await measureThroughput(call, { callers: 4, calls: throughputCalls });
          rows.push({ placement: placement.name, kind, where, ...latency, ownerCpuUs, callsPerSecond });
        }
        rows.push({ placement: placement.name, kind, where: 'wire', ...(await timeWire(wire, bareTrip(kind), { warmup, samples, throughputCalls })) });
      }
    }
    await profiler?.stop(join(profileDir, 'host'));
    const text = formatTable(
      ['CPUs', 'call', 'through', 'median ms', 'p90 ms', 'p99 ms', 'CPU µs/call', 'A CPU µs/call', 'calls/s (4 in flight)', 'samples'],
      rows.map((r) => [r.placement, r.kind, r.where, round(r.median), round(r.p90), round(r.p99), round(r.cpuUs), r.ownerCpuUs === null ? '-' : round(r.ownerCpuUs), round(r.callsPerSecond), r.n]),
    );
    return { text: `${text}\n\n${channelCosts(rows, frames)}`, json: { samples, warmup, settle, throughputCalls, frames, rows: rows.map(roundNumbers) } };
  } finally {
    if (!pinningUnavailable()) pin(process.pid, ALL_CPUS);
    await wire?.close();
    await owner?.stop();
    await berth.close();
  }
}

/**
 * `berth connect` from dist/, ready once it prints `channel ready`. Its stderr (a status line per call)
 * goes to a file in its home: read through a pipe, each line woke this process — B — which a real host,
 * on another machine than the owner's terminal, never pays.
 */
function startOwnerProcess(url, project, home, tokenFile, nodeArgs) {
  return startDaemonProcess({
    name: 'berth connect',
    command: process.execPath,
    args: [...nodeArgs, join(berthDir(), 'bin', 'berth.js'), 'connect', url, '--workspace-id', WORKSPACE_ID, '--project', project, '--intention', INTENTION, '--token-file', tokenFile, '--home', home, '--approve', 'critical'],
    ready: /channel ready/,
    readyOn: 'stderr',
    stderrFile: join(home, 'connect.stderr'),
    timeoutMs: READY_TIMEOUT_MS,
  });
}

/**
 * `apart`: B (this process, every thread) on CPU 0, A and the wire's echo (their process trees) on
 * CPU 1; `shared`: all on every CPU. Only `shared` where this machine cannot pin.
 */
function placements(otherEnds) {
  const shared = {
    name: 'shared',
    apply: () => {
      if (pinningUnavailable()) return;
      pin(process.pid, ALL_CPUS);
      for (const pid of otherEnds) pin(pid, ALL_CPUS, { tree: true });
    },
  };
  if (pinningUnavailable()) return [shared];
  const apart = {
    name: 'apart',
    apply: () => {
      pin(process.pid, '0');
      for (const pid of otherEnds) pin(pid, ALL_CPUS.replace(/^0/, '1'), { tree: true });
    },
  };
  return [apart, shared];
}

/** A row of bare round trips: latency, the echo's CPU per trip in A's column, and trips/s with 4 in flight. */
async function timeWire(wire, trip, { warmup, samples, throughputCalls }) {
  let echoCpu0 = 0;
  const latency = await measureLatency(trip, { warmup, samples, beforeTimed: () => (echoCpu0 = cpuMicros(wire.pid)) });
  const ownerCpuUs = (cpuMicros(wire.pid) - echoCpu0) / samples;
  return { ...latency, ownerCpuUs, callsPerSecond: await measureThroughput(trip, { callers: 4, calls: throughputCalls }) };
}

/** What the channel adds to a call (channel − local at the median), and how much of that the bare wire's round trip is. */
function channelCosts(rows, frames) {
  const median = (placement, kind, where) => rows.find((r) => r.placement === placement && r.kind === kind && r.where === where).median;
  const lines = [...new Set(rows.map((r) => r.placement))].flatMap((placement) =>
    ['read', 'write'].map((kind) => {
      const added = median(placement, kind, 'channel') - median(placement, kind, 'local');
      const wire = median(placement, kind, 'wire');
      return `${placement.padEnd(6)} ${kind.padEnd(5)}  channel − local ${added.toFixed(3)} ms; the bare wire ${wire.toFixed(3)} ms of it, Berth's own ${(added - wire).toFixed(3)} ms`;
    }),
  );
  const sizes = ['read', 'write'].map((kind) => `${kind} ${frames[kind].call} B out, ${frames[kind].result} B back`).join('; ');
  return [...lines, `wire: a bare WebSocket round trip between this process and a child in A's place, with frames of the channel's sizes (${sizes})`].join('\n');
}

/** B's side is this very process: the inspector's profiler, written like `--cpu-prof` writes it. */
async function startProfiler() {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(dir) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'host.cpuprofile'), JSON.stringify(profile));
    },
  };
}

if (isMain(import.meta.url)) await runStandalone({ name, description, run });
