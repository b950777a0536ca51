// Benchmark "cluster" (issue 18): the same rows on Berth's SQLite store (the default) and on a
// PostgreSQL store (`berth serve --store postgres://…`), one node each, side by side in one run:
// sessions created per second (a few callers at once), prompts per second on the scripted model
// (several sessions in parallel, each prompt waited to its turn_complete), and SSE frames per
// second delivered to many subscribers of one busy session — with median latencies and the
// per-request ratio PostgreSQL / SQLite that issue 18's 1.5× target is about.
//
// The rows for several nodes (PostgreSQL + NATS, 1, 2 and 3 nodes) have their slot in the report
// but are not measured: leases and NATS are not built yet, and the report says so.
//
// PostgreSQL is started by the benchmark from the Debian binaries on loopback (lib/postgres.mjs,
// the tests' harness) with durability on, and stopped by PID. Both daemons stay up for the whole
// run; every measured block runs on one daemon at a time, the order alternating round by round.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pgClient from 'pg';
import { startBerth } from './berth.mjs';
import { registerCleanup } from './lib/cleanup.mjs';
import { reportCluster } from './lib/cluster-report.mjs';
import { keepAliveClient } from './lib/http-client.mjs';
import { startModel } from './lib/model.mjs';
import { postgresBinDir, postgresUnavailable, startPostgres } from './lib/postgres.mjs';
import { treeRss } from './lib/proctree.mjs';
import { createSession, promptTurn, subscribe } from './lib/session-steps.mjs';
import { makeSmallWorkspace } from './lib/small-workspace.mjs';

export const name = 'cluster';
export const description = 'sessions/s, prompts/s, SSE frames/s: Berth on SQLite beside Berth on PostgreSQL (issue 18)';

/**
 * Per round and daemon: `callers` clients creating `sessionsPerCaller` sessions each;
 * `promptSessions` sessions taking `promptsPerSession` prompts each, all at once; one session
 * with `subscribers` streams open taking `fanoutPrompts` prompts one after the other.
 */
const PLANS = {
  full: { rounds: 6, callers: 4, sessionsPerCaller: 20, promptSessions: 4, promptsPerSession: 10, subscribers: 16, fanoutPrompts: 10 },
  quick: { rounds: 2, callers: 4, sessionsPerCaller: 5, promptSessions: 4, promptsPerSession: 3, subscribers: 16, fanoutPrompts: 3 },
};
const WARMUP = { rounds: 1, callers: 2, sessionsPerCaller: 3, promptSessions: 2, promptsPerSession: 2, subscribers: 4, fanoutPrompts: 2 };
const PROMPT_TEXT = 'Say hello';
/**
 * PostgreSQL keeps durability on unless `BERTH_BENCH_PG_DURABILITY=off` (a diagnostic: how much of
 * the difference is the commit's fsync); the report says which.
 */
const PG_DURABLE = process.env.BERTH_BENCH_PG_DURABILITY !== 'off';
const PHASES = ['sessions', 'prompts', 'fanout'];

const msSince = (start, end = process.hrtime.bigint()) => Number(end - start) / 1e6;
/** hrtime (ms) → wall clock (ms since the epoch), to set a frame's arrival against the daemon's serverTimestamp. */
const wallOffsetMs = performance.timeOrigin + performance.now() - Number(process.hrtime.bigint()) / 1e6;
const wallMs = (at) => Number(at) / 1e6 + wallOffsetMs;

/** A Berth daemon on its own scratch folder and workspace; `storeUrl` puts its store in PostgreSQL. */
async function bootBerth(store, { modelUrl, storeUrl, profileDir }) {
  const scratch = mkdtempSync(join(tmpdir(), `berth-bench-cluster-${store}-`));
  const removeScratch = () => rmSync(scratch, { recursive: true, force: true });
  const unregister = registerCleanup(removeScratch);
  const workspace = join(scratch, 'ws');
  makeSmallWorkspace(workspace);
  const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', join(profileDir, store)] : [];
  try {
    const proc = await startBerth({ workspace, scratch, modelUrl, nodeArgs, extraArgs: storeUrl ? ['--store', storeUrl] : [] });
    await proc.ready();
    const close = async () => {
      await proc.stop();
      removeScratch();
      unregister();
    };
    return { store, proc, close };
  } catch (error) {
    removeScratch();
    unregister();
    throw error;
  }
}

/** Closes sessions a block opened (not timed), so every block starts with the same live sessions. */
async function closeSessions(url, ids) {
  const client = keepAliveClient(url);
  try {
    for (const id of ids) {
      const res = await client.delete(`/session/${encodeURIComponent(id)}`);
      if (res.status >= 300) throw new Error(`DELETE /session/:id -> ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
    }
  } finally {
    client.close();
  }
}

/** `callers` keep-alive clients each create `sessionsPerCaller` sessions one after the other. */
async function sessionsBlock(url, plan) {
  const clients = Array.from({ length: plan.callers }, () => keepAliveClient(url));
  const latencyMs = [];
  const ids = [];
  const started = process.hrtime.bigint();
  try {
    await Promise.all(
      clients.map(async (client) => {
        for (let i = 0; i < plan.sessionsPerCaller; i += 1) {
          const s = await createSession(client);
          latencyMs.push(s.ms);
          ids.push(s.sessionId);
        }
      }),
    );
  } finally {
    for (const c of clients) c.close();
  }
  const rate = ids.length / (msSince(started) / 1000);
  await closeSessions(url, ids);
  return { latencyMs, rate };
}

/** `promptSessions` sessions (created and subscribed untimed) take `promptsPerSession` prompts each, all at once. */
async function promptsBlock(url, plan) {
  const setup = keepAliveClient(url);
  const sessions = [];
  try {
    for (let i = 0; i < plan.promptSessions; i += 1) {
      const { sessionId } = await createSession(setup);
      sessions.push({ sessionId, stream: await subscribe(url, sessionId), client: keepAliveClient(url) });
    }
    const latencyMs = [];
    const replies = new Set();
    const started = process.hrtime.bigint();
    await Promise.all(
      sessions.map(async ({ sessionId, stream, client }) => {
        for (let i = 0; i < plan.promptsPerSession; i += 1) {
          const t = await promptTurn(client, stream, sessionId, PROMPT_TEXT);
          latencyMs.push(t.turnMs);
          replies.add(t.reply);
        }
      }),
    );
    const rate = latencyMs.length / (msSince(started) / 1000);
    return { latencyMs, rate, replies: [...replies] };
  } finally {
    for (const s of sessions) {
      s.stream.close();
      s.client.close();
    }
    setup.close();
    await closeSessions(url, sessions.map((s) => s.sessionId));
  }
}

/**
 * One session, `subscribers` streams on it, `fanoutPrompts` prompts one after the other (each to
 * its turn_complete on the first stream). Delivered: every frame with an event id that reached a
 * stream from the first prompt on, until the last turn_complete reached the last stream. A frame's
 * delay: its arrival (wall clock) minus the daemon's `_meta.serverTimestamp` (whole ms).
 */
async function fanoutBlock(url, plan) {
  const client = keepAliveClient(url);
  const { sessionId } = await createSession(client);
  const streams = [];
  try {
    for (let i = 0; i < plan.subscribers; i += 1) streams.push(await subscribe(url, sessionId));
    const started = process.hrtime.bigint();
    let last;
    for (let i = 0; i < plan.fanoutPrompts; i += 1) last = await promptTurn(client, streams[0], sessionId, PROMPT_TEXT);
    const ends = await Promise.all(
      streams.map((s) => s.waitFor((f) => f.event === 'turn_complete' && (f.data?.promptId ?? f.data?.data?.promptId) === last.promptId)),
    );
    const end = ends.reduce((a, f) => (f.at > a ? f.at : a), started);
    const delayMs = [];
    let delivered = 0;
    for (const s of streams) {
      for (const f of s.frames) {
        if (f.at < started || f.at > end || typeof f.data?.id !== 'number') continue;
        delivered += 1;
        const stamp = f.data._meta?.serverTimestamp;
        if (typeof stamp === 'number') delayMs.push(Math.max(0, wallMs(f.at) - stamp));
      }
    }
    const rate = delivered / (msSince(started, end) / 1000);
    return { latencyMs: delayMs, rate, framesPerTurn: delivered / plan.subscribers / plan.fanoutPrompts };
  } finally {
    for (const s of streams) s.close();
    client.close();
    await closeSessions(url, [sessionId]);
  }
}

const BLOCKS = { sessions: sessionsBlock, prompts: promptsBlock, fanout: fanoutBlock };

/** The sessions the PostgreSQL daemon stored: shows its rows went to PostgreSQL, not to a SQLite file. */
async function storedSessions(storeUrl) {
  const client = new pgClient.Client({ connectionString: storeUrl });
  await client.connect();
  try {
    return Number((await client.query('SELECT count(*) AS n FROM sessions')).rows[0].n);
  } finally {
    await client.end();
  }
}

function postgresVersion() {
  try {
    return execFileSync(join(postgresBinDir(), 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** Runs the benchmark; `quick` shrinks rounds and counts for a smoke run. */
export async function run({ quick = false, profileDir, log = console.error } = {}) {
  const plan = quick ? PLANS.quick : PLANS.full;
  // The SQLite daemon must not pick up a PostgreSQL store from the environment.
  delete process.env.BERTH_STORE_URL;
  const model = await startModel();
  log(`bench: scripted model at ${model.url}`);
  const daemons = [];
  let pg;
  let storeUrl;
  const pgMissing = postgresUnavailable();
  try {
    daemons.push(await bootBerth('sqlite', { modelUrl: model.url, profileDir }));
    if (pgMissing) log(`bench: PostgreSQL rows skipped: ${pgMissing}`);
    else {
      pg = await startPostgres({ durable: PG_DURABLE });
      log(`bench: PostgreSQL (${postgresVersion()}) on 127.0.0.1:${pg.port}, pid ${pg.pid}, durability ${pg.durable ? 'on' : 'OFF'}`);
      storeUrl = await pg.createDatabase('berth_bench');
      daemons.push(await bootBerth('postgres', { modelUrl: model.url, storeUrl, profileDir }));
    }
    for (const d of daemons) log(`bench: berth on ${d.store} at ${d.proc.url} (pid ${d.proc.pid})`);

    for (const d of daemons) for (const phase of PHASES) await BLOCKS[phase](d.proc.url, WARMUP);
    const blocks = Object.fromEntries(daemons.map((d) => [d.store, Object.fromEntries(PHASES.map((p) => [p, []]))]));
    const loads = [];
    for (let round = 0; round < plan.rounds; round += 1) {
      const order = round % 2 === 0 ? daemons : [...daemons].reverse();
      for (const phase of PHASES) {
        for (const d of order) blocks[d.store][phase].push(await BLOCKS[phase](d.proc.url, plan));
      }
      loads.push(Number(loadavg()[0].toFixed(2)));
      log(`bench: round ${round + 1}/${plan.rounds} done, load ${loads.at(-1)}`);
    }
    const rss = Object.fromEntries(daemons.map((d) => [d.store, treeRss(d.proc.pid)]));
    if (pg) rss.postgresServer = treeRss(pg.pid);
    const postgres = pg ? { version: postgresVersion(), durable: pg.durable, sessionRows: await storedSessions(storeUrl) } : { skipped: pgMissing };
    return reportCluster({ plan, blocks, loads, rss, postgres });
  } finally {
    for (const d of daemons.reverse()) await d.close().catch((e) => log(`bench: stopping berth on ${d.store} failed: ${e.message}`));
    if (pg) await pg.stop().catch((e) => log(`bench: stopping PostgreSQL failed: ${e.message}`));
    await model.close();
  }
}
