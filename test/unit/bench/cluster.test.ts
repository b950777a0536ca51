// The cluster benchmark's report: which way each ratio points (per request, so above 1 means
// slower than SQLite for latencies and rates alike), the 1.5× verdict on PostgreSQL + NATS, the
// 1/2/3-node table, the forwarding cost against 1 ms, and the tables when a server is missing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

// Plain .mjs loaded by URL, as in harness.test.ts: no declarations for tsc to ask for.
const load = (path: string): Promise<any> => import(new URL(`../../../bench/${path}`, import.meta.url).href);

const plan = { rounds: 1, callers: 4, sessionsPerCaller: 2, promptSessions: 2, promptsPerSession: 2, subscribers: 16, fanoutPrompts: 2, forwardRequests: 2 };
const block = (rate: number, latencyMs: number[]) => ({ rate, latencyMs, framesPerTurn: 5 });
const blocksOf = (scale: number) => ({
  sessions: [block(200 / scale, [4 * scale, 5 * scale, 6 * scale])],
  prompts: [block(60 / scale, [30 * scale, 40 * scale])],
  fanout: [block(4000 / scale, [2 * scale, 3 * scale])],
});
const rss = { sqlite: { totalKiB: 90 * 1024 }, postgres: { totalKiB: 95 * 1024 }, postgresServer: { totalKiB: 80 * 1024 } };
const pgInfo = { version: 'postgres 15', durable: true, sessionRows: 12 };
const busInfo = { version: 'nats 2.9', nodes: 3, sessionRows: 40 };

describe('bench cluster report', () => {
  it('gives the per-request ratio to SQLite for latencies and rates alike, and judges PG+NATS against 1.5×', async () => {
    const { reportCluster } = await load('lib/cluster-report.mjs');
    const { json, text } = reportCluster({
      plan,
      blocks: { sqlite: blocksOf(1), postgres: blocksOf(1.25), nats1: blocksOf(2) },
      forward: [],
      loads: [1.5],
      rss,
      postgres: pgInfo,
      bus: busInfo,
    });
    for (const row of json.rows) {
      assert.equal(row.ratios.postgres, 1.25, row.id);
      assert.equal(row.ratios['pg+nats 1 node'], 2, row.id);
    }
    assert.equal(json.rows.find((r: any) => r.id === 'sessions created/s')['pg+nats 1 node'].median, 100);
    assert.match(text, /POST \/session, 4 callers .* 1\.25× .* 2\.00×\s+NO/);
    assert.match(text, /durability ON/);
  });

  it('shows the 1, 2 and 3 node medians and the 3-node / 1-node ratio', async () => {
    const { reportCluster } = await load('lib/cluster-report.mjs');
    const { json, text } = reportCluster({
      plan,
      blocks: { sqlite: blocksOf(1), postgres: blocksOf(1), nats1: blocksOf(1), nats2: blocksOf(0.8), nats3: blocksOf(0.5) },
      forward: [],
      loads: [],
      rss,
      postgres: pgInfo,
      bus: busInfo,
    });
    const rate = json.rows.find((r: any) => r.id === 'prompts/s');
    assert.deepEqual([rate['pg+nats 1 node'].median, rate['pg+nats 2 nodes'].median, rate['pg+nats 3 nodes'].median], [60, 75, 120]);
    const nodes = text.slice(text.indexOf('PostgreSQL + NATS, round robin'));
    assert.match(nodes, /1 node\s+2 nodes\s+3 nodes\s+3 nodes \/ 1 node/);
    assert.match(nodes, /prompts\/s\s+60\s+75\s+120\s+2\.00×/);
    assert.doesNotMatch(text, /forwarding/);
  });

  it('takes the forwarding cost as the difference of the medians and holds it to 1 ms', async () => {
    const { summarizeForwarding } = await load('lib/cluster-report.mjs');
    const cheap = summarizeForwarding([
      { owner: [1, 1, 1], forwarded: [1.5, 1.6, 1.7] },
      { owner: [1, 1.2], forwarded: [1.6, 1.8] },
    ]);
    assert.equal(cheap.owner.median, 1);
    assert.equal(cheap.forwarded.median, 1.6);
    assert.equal(cheap.costMs, 0.6);
    assert.equal(cheap.withinTarget, true);
    const dear = summarizeForwarding([{ owner: [1, 1], forwarded: [3, 3] }]);
    assert.equal(dear.withinTarget, false);
    assert.equal(summarizeForwarding([]), undefined);
  });

  it('prints the SQLite column alone, and says why, when PostgreSQL and NATS are missing', async () => {
    const { reportCluster } = await load('lib/cluster-report.mjs');
    const alone = reportCluster({
      plan,
      blocks: { sqlite: blocksOf(1) },
      forward: [],
      loads: [],
      rss: { sqlite: rss.sqlite },
      postgres: { skipped: 'no binaries' },
      bus: { skipped: 'no binaries' },
    });
    assert.ok(alone.json.rows.every((r: any) => r.postgres === undefined && Object.keys(r.ratios).length === 0));
    assert.match(alone.text, /PostgreSQL: not measured \(no binaries\)/);
    assert.match(alone.text, /PostgreSQL \+ NATS: not measured \(no binaries\)/);
    assert.equal(alone.text.slice(alone.text.indexOf('PostgreSQL + NATS, round robin')).match(/not measured/g)?.length, 18);
  });
});
