// CPU per request of every process a request touches, on the SQLite daemon and on a one-node
// PostgreSQL + NATS cluster per checkout: the Berth node, every PostgreSQL process (backends,
// WAL writer, …), the NATS server and the scripted model. On a machine with fewer cores than
// busy processes a request's latency follows the sum of these, so this is the A/B that wall
// clock is too noisy for. CPU time is read from /proc/<pid>/task/*/schedstat (nanoseconds on
// CPU, every thread), before and after each block; blocks alternate between targets round by
// round, and only the timed requests are inside a block (setup and deletes are outside).
//
//   node bench/cluster-cpu.mjs <checkoutA> [checkoutB] [rounds]
//
// Prints, per target, the CPU µs per POST /session (4 callers) and per prompt → turn_complete
// (4 sessions at once), summed over the rounds, by process, and the wall-clock median latency.
// The SQLite daemon runs checkoutA's build (and checkoutB's too with _SQLITE_B=1). Knobs (environment): BERTH_BENCH_CPU_CALLERS,
// _SESSIONS (per caller), _PROMPT_SESSIONS, _PROMPTS (per session); _PROFILE=<folder> (--cpu-prof
// of every daemon), _PIN=1, _KEEP=1, _STRACE=<folder>, _PG_SPLIT=1, _SOCKET=<sides> (each where
// it is read below).
import { readdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import pgClient from 'pg';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { balancer, bootCluster, bootSingle } from './lib/cluster-nodes.mjs';
import { pin, pinningUnavailable } from './lib/cpu-pinning.mjs';
import { startModel } from './lib/model.mjs';
import { startNats } from './lib/nats.mjs';
import { startPostgres } from './lib/postgres.mjs';
import { descendants } from './lib/proctree.mjs';
import { createSession, promptTurn } from './lib/session-steps.mjs';

const CALLERS = Number(process.env.BERTH_BENCH_CPU_CALLERS ?? 4);
const SESSIONS_PER_CALLER = Number(process.env.BERTH_BENCH_CPU_SESSIONS ?? 50);
const PROMPT_SESSIONS = Number(process.env.BERTH_BENCH_CPU_PROMPT_SESSIONS ?? 4);
const PROMPTS_PER_SESSION = Number(process.env.BERTH_BENCH_CPU_PROMPTS ?? 15);

/** Nanoseconds on CPU of every thread of `pid` (0 once it is gone). */
function cpuNs(pid) {
  let total = 0;
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const tid of tasks) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended.
    }
  }
  return total;
}

/** Nanoseconds on CPU of `pid`'s main thread. */
function mainThreadNs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

/** `url` (postgres://user@127.0.0.1:port/db) through the server's unix socket folder (its `-k`). */
function socketUrl(url, postmasterPid) {
  const args = readFileSync(`/proc/${postmasterPid}/cmdline`, 'utf8').split('\0');
  const u = new URL(url);
  return `postgres://${u.username}@localhost:${u.port}${u.pathname}?host=${encodeURIComponent(args[args.indexOf('-k') + 1])}`;
}

/** What `ps` shows for `pid`: a PostgreSQL process names its role and database there. */
function processTitle(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim().slice(0, 60);
  } catch {
    return '?';
  }
}

/** Clock ticks of `pid` in the kernel (stime), all threads: what its system calls cost. */
function sysTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[12]);
  } catch {
    return 0;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)];
};

async function main([dirA, dirB, rounds = '4']) {
  if (!dirA) throw new Error('usage: node bench/cluster-cpu.mjs <checkoutA> [checkoutB] [rounds]');
  for (const v of ['BERTH_STORE_URL', 'BERTH_BUS_URL', 'BERTH_NODE_ID', 'BERTH_LEASE_MS', 'BERTH_TOKEN']) delete process.env[v];
  const model = await startModel();
  const pg = await startPostgres({ durable: true });
  const sides = dirB ? [['A', dirA], ['B', dirB]] : [['A', dirA]];
  const buses = {};
  const targets = [];
  try {
    process.env.BERTH_BENCH_BERTH_DIR = dirA;
    targets.push({ label: 'sqlite', target: await bootSingle('sqlite', { modelUrl: model.url, profileDir: process.env.BERTH_BENCH_CPU_PROFILE }) });
    // BERTH_BENCH_CPU_SQLITE_B=1: checkoutB's SQLite daemon too, for an A/B of the embedded default.
    if (dirB && process.env.BERTH_BENCH_CPU_SQLITE_B === '1') {
      process.env.BERTH_BENCH_BERTH_DIR = dirB;
      targets.push({ label: 'sqlite B', target: await bootSingle('sqliteB', { modelUrl: model.url, profileDir: process.env.BERTH_BENCH_CPU_PROFILE }) });
    }
    for (const [side, dir] of sides) {
      process.env.BERTH_BENCH_BERTH_DIR = dir;
      buses[side] = await startNats();
      const tcpUrl = await pg.createDatabase(`cpu_nats_${side}`);
      // BERTH_BENCH_CPU_SOCKET=<sides>, e.g. B: those sides reach PostgreSQL over its unix socket instead of loopback TCP.
      const storeUrl = (process.env.BERTH_BENCH_CPU_SOCKET ?? '').includes(side) ? socketUrl(tcpUrl, pg.pid) : tcpUrl;
      const target = await bootCluster(`nats${side}`, { count: 1, modelUrl: model.url, storeUrl, busUrl: buses[side].url, profileDir: process.env.BERTH_BENCH_CPU_PROFILE });
      targets.push({ label: `nats ${side}`, target, nats: buses[side].pid });
    }
    const pgPids = () => [pg.pid, ...descendants(pg.pid)];
    // BERTH_BENCH_CPU_PIN=1: every Berth process on the last CPU, everything else of the bench on the
    // others, so a node's --cpu-prof samples its own work rather than the moments it waited for a CPU.
    if (process.env.BERTH_BENCH_CPU_PIN === '1' && !pinningUnavailable()) {
      const last = availableParallelism() - 1;
      const others = last === 1 ? '0' : `0-${last - 1}`;
      for (const t of targets) for (const p of t.target.procs) pin(p.pid, String(last), { tree: true });
      for (const pid of [process.pid, pg.pid, model.pid, ...Object.values(buses).map((b) => b.pid)]) if (pid) pin(pid, others, { tree: true });
    }
    // BERTH_BENCH_CPU_PG_SPLIT=1: PostgreSQL's CPU of each block by process title (backend, WAL writer, …).
    const pgByProcess = () => new Map(pgPids().map((pid) => [pid, { ns: cpuNs(pid), title: processTitle(pid) }]));
    const pgSplit = (before, after) =>
      [...after]
        .map(([pid, a]) => [a.title, (a.ns - (before.get(pid)?.ns ?? 0)) / 1e6])
        .filter(([, ms]) => ms > 0.5)
        .map(([title, ms]) => `${ms.toFixed(1)} ms ${title}`)
        .join('; ');
    const snapshot = (t) => ({
      node: t.target.procs.reduce((s, p) => s + cpuNs(p.pid), 0),
      postgres: t.label.startsWith('sqlite') ? 0 : pgPids().reduce((s, pid) => s + cpuNs(pid), 0),
      nats: t.nats ? cpuNs(t.nats) : 0,
      model: model.pid ? cpuNs(model.pid) : 0,
      // The main thread alone: JavaScript; the rest is GC, the compiler and libuv's pool.
      nodeMain: t.target.procs.reduce((s, p) => s + mainThreadNs(p.pid), 0),
      // 100 ticks a second on Linux.
      nodeSys: t.target.procs.reduce((s, p) => s + sysTicks(p.pid), 0) * 1e7,
    });
    const totals = new Map(targets.map((t) => [t.label, { sessions: blank(), prompts: blank() }]));
    const measure = async (t, phase, work) => {
      const trace = await traced(t, phase);
      const pgBefore = pgByProcess();
      const before = snapshot(t);
      const count = await work();
      const after = snapshot(t);
      await trace.stop();
      if (process.env.BERTH_BENCH_CPU_PG_SPLIT === '1' && !t.label.startsWith('sqlite')) console.error(t.label, phase, pgSplit(pgBefore, pgByProcess()));
      const acc = totals.get(t.label)[phase];
      for (const k of Object.keys(before)) acc.cpu[k] += after[k] - before[k];
      acc.count += count;
    };
    for (let round = 0; round < Number(rounds); round += 1) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const t of order) {
        const open = () => balancer(t.target, 1);
        const clients = Array.from({ length: CALLERS }, open);
        const ids = [];
        await measure(t, 'sessions', async () => {
          await Promise.all(
            clients.map(async (c) => {
              for (let i = 0; i < SESSIONS_PER_CALLER; i += 1) {
                const s = await createSession(c);
                totals.get(t.label).sessions.ms.push(s.ms);
                ids.push(s.sessionId);
              }
            }),
          );
          return ids.length;
        });
        // BERTH_BENCH_CPU_KEEP=1 keeps them open: a profile of the run then holds creations only.
        if (process.env.BERTH_BENCH_CPU_KEEP !== '1') for (const id of ids) await clients[0].delete(`/session/${id}`);
        const sessions = [];
        for (let i = 0; i < PROMPT_SESSIONS; i += 1) {
          const client = clients[i % clients.length];
          const { sessionId } = await createSession(client);
          sessions.push({ sessionId, client, stream: await client.subscribe(sessionId) });
        }
        await promptTurn(sessions[0].client, sessions[0].stream, sessions[0].sessionId, 'warm up');
        await measure(t, 'prompts', async () => {
          await Promise.all(
            sessions.map(async (s) => {
              for (let i = 0; i < PROMPTS_PER_SESSION; i += 1) totals.get(t.label).prompts.ms.push((await promptTurn(s.client, s.stream, s.sessionId, 'Say hello')).turnMs);
            }),
          );
          return PROMPT_SESSIONS * PROMPTS_PER_SESSION;
        });
        for (const s of sessions) {
          s.stream.close();
          await s.client.delete(`/session/${s.sessionId}`);
        }
        for (const c of clients) c.close();
      }
      console.error(`round ${round + 1}/${rounds}, load ${loadavg()[0].toFixed(2)}`);
    }
    if (process.env.BERTH_BENCH_CPU_SOCKET) {
      // Shows which databases' connections came over the socket (no client address) and which over TCP.
      const admin = new pgClient.Client({ connectionString: await pg.createDatabase('cpu_admin') });
      await admin.connect();
      const { rows } = await admin.query(`SELECT datname, client_addr IS NULL AS socket, count(*)::int AS n FROM pg_stat_activity WHERE datname LIKE 'cpu_nats_%' GROUP BY 1, 2 ORDER BY 1`);
      await admin.end();
      console.log(rows.map((r) => `${r.datname}: ${r.n} ${r.socket ? 'socket' : 'TCP'}`).join(', '));
    }
    console.log(`A = ${dirA}${dirB ? `\nB = ${dirB}` : ''}\nCPU µs per request (all rounds), by process; median latency ms`);
    for (const phase of ['sessions', 'prompts']) {
      console.log(`${phase === 'sessions' ? 'POST /session, 4 callers' : 'prompt → turn_complete, 4 sessions'}`);
      for (const t of targets) {
        const { cpu, count, ms } = totals.get(t.label)[phase];
        const per = (k) => (cpu[k] / count / 1000).toFixed(0).padStart(6);
        const sum = (cpu.node + cpu.postgres + cpu.nats) / count / 1000;
        console.log(`  ${t.label.padEnd(7)} node ${per('node')} (main thread ${per('nodeMain')}, kernel ${per('nodeSys')})  postgres ${per('postgres')}  nats ${per('nats')}  = ${sum.toFixed(0).padStart(6)}   model ${per('model')}   latency ${median(ms).toFixed(2)} ms (n=${count})`);
      }
    }
  } finally {
    for (const t of targets.reverse()) await t.target.close().catch(() => undefined);
    for (const bus of Object.values(buses)) await bus.stop();
    await pg.stop();
    await model.close();
  }
}

/**
 * BERTH_BENCH_CPU_STRACE=<folder>: every node's system calls during each block, counted by
 * `strace -c -f` into <folder>/<target>-<phase>-<pid>.txt (strace slows the node: CPU figures of
 * such a run are not comparable).
 */
async function traced(t, phase) {
  const dir = process.env.BERTH_BENCH_CPU_STRACE;
  if (!dir) return { stop: async () => undefined };
  const children = t.target.procs.map((p) =>
    spawn('strace', ['-c', '-f', '-o', join(dir, `${t.label.replace(' ', '')}-${phase}-${p.pid}.txt`), '-p', String(p.pid)], { stdio: 'ignore' }),
  );
  await new Promise((r) => setTimeout(r, 500));
  return {
    stop: async () => {
      for (const c of children) c.kill('SIGINT');
      await Promise.all(children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r()))));
    },
  };
}

function blank() {
  return { cpu: { node: 0, postgres: 0, nats: 0, model: 0, nodeSys: 0, nodeMain: 0 }, count: 0, ms: [] };
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
