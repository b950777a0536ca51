// A/B of two built Berth checkouts on the forwarding row alone: per checkout a 2-node
// PostgreSQL + NATS cluster (a NATS server each), then rounds of `GET /session/{id}/status`
// pairs, one to the owner and one through the other node, the two clusters taking turns block by
// block (the order alternating round by round). Besides latency it reads each process's CPU time
// from /proc around every block, so a change is judged by CPU per request too, not only by a wall
// clock the other work on the machine disturbs.
//
//   node bench/forward-ab.mjs <checkoutA> <checkoutB> [rounds] [pairs per block]
import { loadavg } from 'node:os';
import { forwardBlock } from './lib/cluster-blocks.mjs';
import { balancer, bootCluster } from './lib/cluster-nodes.mjs';
import { startModel } from './lib/model.mjs';
import { startNats } from './lib/nats.mjs';
import { startPostgres } from './lib/postgres.mjs';
import { cpuMicros } from './lib/proctree.mjs';
import { median } from './lib/stats.mjs';

async function main([dirA, dirB, rounds = '6', pairs = '200']) {
  if (!dirA || !dirB) throw new Error('usage: node bench/forward-ab.mjs <checkoutA> <checkoutB> [rounds] [pairs]');
  for (const v of ['BERTH_STORE_URL', 'BERTH_BUS_URL', 'BERTH_NODE_ID', 'BERTH_LEASE_MS', 'BERTH_TOKEN']) delete process.env[v];
  const model = await startModel();
  const pg = await startPostgres({ durable: true });
  const sides = [];
  try {
    for (const [label, dir] of [['A', dirA], ['B', dirB]]) {
      const bus = await startNats();
      process.env.BERTH_BENCH_BERTH_DIR = dir;
      const target = await bootCluster(`fwd${label}`, { count: 2, modelUrl: model.url, storeUrl: await pg.createDatabase(`fwd_${label}`), busUrl: bus.url });
      sides.push({ label, dir, bus, target, owner: [], forwarded: [], diffs: [], cpu: { owner: 0, other: 0, nats: 0 } });
    }
    const plan = { forwardRequests: Number(pairs) };
    // One untimed block each first: connections, caches and the JIT warm.
    for (const s of sides) await forwardBlock(() => balancer(s.target), { forwardRequests: 50 });
    const loads = [];
    for (let round = 0; round < Number(rounds); round += 1) {
      for (const s of round % 2 === 0 ? sides : [...sides].reverse()) {
        const pids = { owner: s.target.procs[0].pid, other: s.target.procs[1].pid, nats: s.bus.pid };
        const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMicros(pid)]));
        const { owner, forwarded } = await forwardBlock(() => balancer(s.target), plan);
        for (const [k, pid] of Object.entries(pids)) s.cpu[k] += cpuMicros(pid) - before[k];
        s.owner.push(...owner);
        s.forwarded.push(...forwarded);
        s.diffs.push(median(forwarded) - median(owner));
      }
      loads.push(loadavg()[0].toFixed(2));
      console.error(`round ${round + 1}/${rounds}, load ${loads.at(-1)}`);
    }
    const n = Number(rounds) * plan.forwardRequests;
    const ms = (x) => `${x.toFixed(3)} ms`;
    const us = (x) => `${Math.round(x / n)} µs`;
    console.log(`${rounds} rounds of ${pairs} pairs per side; 1-minute load per round: ${loads.join(' ')}`);
    console.log('side  owner median  via other median  difference  (block differences: median, min)  CPU per pair: owner node / other node / nats-server');
    for (const s of sides) {
      console.log(
        `${s.label}     ${ms(median(s.owner))}      ${ms(median(s.forwarded))}          ${ms(median(s.forwarded) - median(s.owner))}    (${ms(median(s.diffs))}, ${ms(Math.min(...s.diffs))})    ${us(s.cpu.owner)} / ${us(s.cpu.other)} / ${us(s.cpu.nats)}   ${s.dir}`,
      );
    }
  } finally {
    for (const s of sides.reverse()) {
      await s.target.close().catch(() => undefined);
      await s.bus.stop();
    }
    await pg.stop();
    await model.close();
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
