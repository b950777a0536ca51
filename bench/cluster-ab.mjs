// A/B of two built Berth checkouts on the rows the PostgreSQL store and forwarding change:
// `POST /session` (4 callers), prompt → turn_complete (4 sessions at once) and the forwarding
// cost, on one SQLite daemon (the reference) and, per checkout, one PostgreSQL daemon and a
// 2-node PostgreSQL + NATS cluster. Every target runs the same block in turn, the order
// alternating round by round, so a machine shared with other work loads both sides alike.
//
//   node bench/cluster-ab.mjs <checkoutA> <checkoutB> [rounds]
//
// A checkout is a folder with a built dist/ (e.g. `git archive <commit>` + `npm run build`).
// `BERTH_BENCH_PG_COMMIT=relaxed` and durability are as in bench/cluster.mjs;
// `BERTH_BENCH_AB_SERIAL=1` measures one request at a time (below). Prints, per target and row,
// the median of every sample and the lowest block median (the least disturbed block).
import { loadavg } from 'node:os';
import { BLOCKS, forwardBlock } from './lib/cluster-blocks.mjs';
import { balancer, bootCluster, bootSingle } from './lib/cluster-nodes.mjs';
import { startModel } from './lib/model.mjs';
import { startNats } from './lib/nats.mjs';
import { startPostgres } from './lib/postgres.mjs';

// BERTH_BENCH_AB_SERIAL=1: one caller and one session at a time, so a request's latency is its own
// critical path (its round trips in series), not its place in a queue of concurrent ones.
const SERIAL = process.env.BERTH_BENCH_AB_SERIAL === '1';
const PLAN = SERIAL
  ? { callers: 1, sessionsPerCaller: 20, promptSessions: 1, promptsPerSession: 10, forwardRequests: 50 }
  : { callers: 4, sessionsPerCaller: 10, promptSessions: 4, promptsPerSession: 5, forwardRequests: 50 };
const RELAXED = process.env.BERTH_BENCH_PG_COMMIT === 'relaxed';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)];
};

async function main([dirA, dirB, rounds = '5']) {
  if (!dirA || !dirB) throw new Error('usage: node bench/cluster-ab.mjs <checkoutA> <checkoutB> [rounds]');
  for (const v of ['BERTH_STORE_URL', 'BERTH_BUS_URL', 'BERTH_NODE_ID', 'BERTH_LEASE_MS', 'BERTH_TOKEN']) delete process.env[v];
  const model = await startModel();
  const pg = await startPostgres({ durable: true });
  // A server per cluster: both name their nodes n1 and n2, so on one server their subjects would meet.
  const buses = { A: await startNats(), B: await startNats() };
  const database = async (name) => {
    const url = await pg.createDatabase(name);
    return RELAXED ? `${url}?options=${encodeURIComponent('-c synchronous_commit=off')}` : url;
  };
  const targets = [];
  try {
    const boot = async (dir, label, start) => {
      process.env.BERTH_BENCH_BERTH_DIR = dir;
      targets.push({ label, target: await start() });
    };
    await boot(dirB, 'sqlite', () => bootSingle('sqlite', { modelUrl: model.url }));
    for (const [side, dir] of [['A', dirA], ['B', dirB]]) {
      await boot(dir, `pg ${side}`, async () => bootSingle(`pg${side}`, { modelUrl: model.url, storeUrl: await database(`ab_pg_${side}`) }));
      await boot(dir, `nats ${side}`, async () =>
        bootCluster(`nats${side}`, { count: 2, modelUrl: model.url, storeUrl: await database(`ab_nats_${side}`), busUrl: buses[side].url }),
      );
    }
    const samples = new Map(targets.map((t) => [t.label, { sessions: [], prompts: [], owner: [], forwarded: [] }]));
    const blockMedians = new Map(targets.map((t) => [t.label, { sessions: [], prompts: [], forwarded: [] }]));
    const loads = [];
    for (let round = 0; round < Number(rounds); round += 1) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const phase of ['sessions', 'prompts']) {
        for (const t of order) {
          // Load on the first node only: this A/B is about one node's store, not round robin.
          const { latencyMs } = await BLOCKS[phase](() => balancer(t.target, 1), PLAN);
          samples.get(t.label)[phase].push(...latencyMs);
          blockMedians.get(t.label)[phase].push(median(latencyMs));
        }
      }
      for (const t of order.filter((x) => x.label.startsWith('nats'))) {
        const { owner, forwarded } = await forwardBlock(() => balancer(t.target), PLAN);
        samples.get(t.label).owner.push(...owner);
        samples.get(t.label).forwarded.push(...forwarded);
        blockMedians.get(t.label).forwarded.push(median(forwarded) - median(owner));
      }
      loads.push(loadavg()[0].toFixed(2));
      console.error(`round ${round + 1}/${rounds}, load ${loads.at(-1)}`);
    }
    const ms = (x) => `${x.toFixed(2)} ms`;
    console.log(`A = ${dirA}\nB = ${dirB}\nPostgreSQL durability on${RELAXED ? ', databases at synchronous_commit=off' : ''}${SERIAL ? ', one caller and one session at a time' : ''}; 1-minute load per round: ${loads.join(' ')}`);
    console.log('target    POST /session median (best block)   prompt→turn_complete median (best block)   forwarding: owner / via other / difference (best block)');
    for (const t of targets) {
      const s = samples.get(t.label);
      const b = blockMedians.get(t.label);
      const fwd = s.forwarded.length
        ? `${ms(median(s.owner))} / ${ms(median(s.forwarded))} / ${ms(median(s.forwarded) - median(s.owner))} (${ms(Math.min(...b.forwarded))})`
        : '';
      console.log(
        `${t.label.padEnd(9)} ${ms(median(s.sessions)).padStart(10)} (${ms(Math.min(...b.sessions))})           ${ms(median(s.prompts)).padStart(10)} (${ms(Math.min(...b.prompts))})                  ${fwd}`,
      );
    }
  } finally {
    for (const t of targets.reverse()) await t.target.close().catch(() => undefined);
    for (const bus of Object.values(buses)) await bus.stop();
    await pg.stop();
    await model.close();
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
