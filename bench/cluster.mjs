// Benchmark "cluster" (issue 18): sessions created per second (a few callers at once), prompts per
// second on the scripted model (several sessions in parallel, each prompt waited to its
// turn_complete), and SSE frames per second delivered to many subscribers of one busy session, on:
//   - one daemon on SQLite (the default),
//   - one daemon on PostgreSQL (`--store postgres://…`, no node id),
//   - a cluster of PostgreSQL + NATS nodes (`--store … --bus nats://… --node-id n<i>`), with the
//     load spread round robin over its first 1, 2 or 3 nodes, as a load balancer would;
// plus the forwarding cost: `GET /session/{id}/status` sent to the session's owner and to another
// node (which forwards it over NATS), median and p90 of each.
//
// PostgreSQL (lib/postgres.mjs) and NATS (lib/nats.mjs) are the tests' harnesses, started by the
// benchmark on loopback and stopped by PID; PostgreSQL keeps its durability on. All daemons stay
// up for the whole run; every measured block runs on one target at a time, the order of targets
// reversing round by round. The cluster's three nodes are always up: in its 1- and 2-node blocks
// the others idle (they hold no sessions, so they only renew nothing and keep their NATS link).
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pgClient from 'pg';
import { BLOCKS, PHASES, forwardBlock } from './lib/cluster-blocks.mjs';
import { balancer, bootCluster, bootSingle } from './lib/cluster-nodes.mjs';
import { reportCluster } from './lib/cluster-report.mjs';
import { startModel } from './lib/model.mjs';
import { natsUnavailable, startNats } from './lib/nats.mjs';
import { postgresBinDir, postgresUnavailable, startPostgres } from './lib/postgres.mjs';
import { treeRss } from './lib/proctree.mjs';

export const name = 'cluster';
export const description = 'sessions/s, prompts/s, SSE frames/s: SQLite, PostgreSQL, and 1-3 PostgreSQL + NATS nodes; the forwarding cost (issue 18)';

/**
 * Per round and target: `callers` clients creating `sessionsPerCaller` sessions each;
 * `promptSessions` sessions taking `promptsPerSession` prompts each, all at once; one session
 * with `subscribers` streams open taking `fanoutPrompts` prompts one after the other; and per
 * round `forwardRequests` status requests to the owner and as many through another node.
 */
const PLANS = {
  full: { rounds: 6, callers: 4, sessionsPerCaller: 20, promptSessions: 4, promptsPerSession: 10, subscribers: 16, fanoutPrompts: 10, forwardRequests: 100 },
  quick: { rounds: 1, callers: 4, sessionsPerCaller: 5, promptSessions: 4, promptsPerSession: 3, subscribers: 16, fanoutPrompts: 3, forwardRequests: 30 },
};
const WARMUP = { rounds: 1, callers: 2, sessionsPerCaller: 3, promptSessions: 2, promptsPerSession: 2, subscribers: 4, fanoutPrompts: 2, forwardRequests: 10 };
/** The cluster's size: the most nodes a block spreads its load over. */
const CLUSTER_NODES = 3;
/**
 * PostgreSQL keeps durability on unless `BERTH_BENCH_PG_DURABILITY=off` (a diagnostic: how much of
 * the difference is the commit's fsync); the report says which.
 */
const PG_DURABLE = process.env.BERTH_BENCH_PG_DURABILITY !== 'off';
/**
 * `BERTH_BENCH_PG_COMMIT=relaxed` runs Berth's databases with synchronous_commit = off set on the
 * URL. Berth's write connections already relax their ordinary commits on a database left at the
 * default (docs/store.md, Commits), so this now measures the same commits; the promised writes
 * flush either way. Durability stays on.
 */
const PG_RELAXED = process.env.BERTH_BENCH_PG_COMMIT === 'relaxed';
const berthDatabase = async (pg, name) => {
  const url = await pg.createDatabase(name);
  return PG_RELAXED ? `${url}?options=${encodeURIComponent('-c synchronous_commit=off')}` : url;
};

/** The sessions a database holds: shows a daemon's rows went to PostgreSQL, not to a SQLite file. */
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

function natsVersion() {
  try {
    return execFileSync('/usr/sbin/nats-server', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** The measured configurations: `{key, target, nodes}`, `nodes` the first n of the target's processes. */
function configurations(targets) {
  const out = [];
  for (const t of targets) {
    if (t.label !== 'cluster') out.push({ key: t.label, target: t, nodes: 1 });
    else for (let n = 1; n <= t.procs.length; n += 1) out.push({ key: `nats${n}`, target: t, nodes: n });
  }
  return out;
}

/** Runs the benchmark; `quick` shrinks rounds and counts for a smoke run. */
export async function run({ quick = false, profileDir, log = console.error } = {}) {
  const plan = quick ? PLANS.quick : PLANS.full;
  // The SQLite daemon must not pick up a PostgreSQL store or a bus from the environment.
  for (const v of ['BERTH_STORE_URL', 'BERTH_BUS_URL', 'BERTH_NODE_ID', 'BERTH_LEASE_MS', 'BERTH_TOKEN']) delete process.env[v];
  const model = await startModel();
  log(`bench: scripted model at ${model.url}`);
  const targets = [];
  let pg;
  let nats;
  const stores = {};
  const pgMissing = postgresUnavailable();
  const natsMissingReason = pgMissing ?? natsUnavailable();
  try {
    targets.push(await bootSingle('sqlite', { modelUrl: model.url, profileDir }));
    if (pgMissing) log(`bench: PostgreSQL rows skipped: ${pgMissing}`);
    else {
      pg = await startPostgres({ durable: PG_DURABLE });
      log(`bench: PostgreSQL (${postgresVersion()}) on 127.0.0.1:${pg.port}, pid ${pg.pid}, durability ${pg.durable ? 'on' : 'OFF'}`);
      stores.postgres = await berthDatabase(pg, 'berth_bench');
      targets.push(await bootSingle('postgres', { modelUrl: model.url, storeUrl: stores.postgres, profileDir }));
    }
    if (natsMissingReason) log(`bench: PostgreSQL + NATS rows skipped: ${natsMissingReason}`);
    else {
      nats = await startNats();
      log(`bench: NATS (${natsVersion()}) at ${nats.url}, pid ${nats.pid}`);
      stores.cluster = await berthDatabase(pg, 'berth_bench_cluster');
      targets.push(await bootCluster('cluster', { count: CLUSTER_NODES, modelUrl: model.url, storeUrl: stores.cluster, busUrl: nats.url, profileDir }));
    }
    for (const t of targets) log(`bench: ${t.label}: ${t.procs.map((p) => `${p.url} (pid ${p.pid})`).join(', ')}`);

    const configs = configurations(targets);
    const cluster = targets.find((t) => t.label === 'cluster');
    const openOn = (c) => () => balancer(c.target, c.nodes);
    for (const c of configs) for (const phase of PHASES) await BLOCKS[phase](openOn(c), WARMUP);
    if (cluster) await forwardBlock(() => balancer(cluster), WARMUP);

    const blocks = Object.fromEntries(configs.map((c) => [c.key, Object.fromEntries(PHASES.map((p) => [p, []]))]));
    const forward = [];
    const loads = [];
    for (let round = 0; round < plan.rounds; round += 1) {
      const order = round % 2 === 0 ? configs : [...configs].reverse();
      for (const phase of PHASES) {
        for (const c of order) blocks[c.key][phase].push(await BLOCKS[phase](openOn(c), plan));
      }
      if (cluster) forward.push(await forwardBlock(() => balancer(cluster), plan));
      loads.push(Number(loadavg()[0].toFixed(2)));
      log(`bench: round ${round + 1}/${plan.rounds} done, load ${loads.at(-1)}`);
    }
    const rss = {};
    for (const t of targets) t.procs.forEach((p, i) => (rss[t.procs.length > 1 ? `${t.label}-n${i + 1}` : t.label] = treeRss(p.pid)));
    if (pg) rss.postgresServer = treeRss(pg.pid);
    if (nats) rss.natsServer = treeRss(nats.pid);
    const postgres = pg ? { version: postgresVersion(), durable: pg.durable, relaxedCommits: PG_RELAXED, sessionRows: await storedSessions(stores.postgres) } : { skipped: pgMissing };
    const bus = nats
      ? { version: natsVersion(), nodes: cluster.procs.length, sessionRows: await storedSessions(stores.cluster) }
      : { skipped: natsMissingReason };
    return reportCluster({ plan, blocks, forward, loads, rss, postgres, bus });
  } finally {
    for (const t of targets.reverse()) await t.close().catch((e) => log(`bench: stopping ${t.label} failed: ${e.message}`));
    if (nats) await nats.stop().catch((e) => log(`bench: stopping NATS failed: ${e.message}`));
    if (pg) await pg.stop().catch((e) => log(`bench: stopping PostgreSQL failed: ${e.message}`));
    await model.close();
  }
}
