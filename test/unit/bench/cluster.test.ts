// The cluster benchmark's report: which way each row's PostgreSQL / SQLite ratio points (per
// request, so above 1 means PostgreSQL is slower for both latencies and rates), the 1.5× verdict,
// the table without PostgreSQL, and the several-node rows printed as not measured, never as numbers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

// Plain .mjs loaded by URL, as in harness.test.ts: no declarations for tsc to ask for.
const load = (path: string): Promise<any> => import(new URL(`../../../bench/${path}`, import.meta.url).href);

const plan = { rounds: 1, callers: 4, sessionsPerCaller: 2, promptSessions: 2, promptsPerSession: 2, subscribers: 16, fanoutPrompts: 2 };
const block = (rate: number, latencyMs: number[]) => ({ rate, latencyMs, framesPerTurn: 5 });
const blocksOf = (scale: number) => ({
  sessions: [block(200 / scale, [4 * scale, 5 * scale, 6 * scale])],
  prompts: [block(60 / scale, [30 * scale, 40 * scale])],
  fanout: [block(4000 / scale, [2 * scale, 3 * scale])],
});
const rss = { sqlite: { totalKiB: 90 * 1024 }, postgres: { totalKiB: 95 * 1024 }, postgresServer: { totalKiB: 80 * 1024 } };

describe('bench cluster report', () => {
  it('gives PostgreSQL / SQLite per request for latencies and rates alike', async () => {
    const { reportCluster } = await load('lib/cluster-report.mjs');
    const { json, text } = reportCluster({
      plan,
      blocks: { sqlite: blocksOf(1), postgres: blocksOf(2) },
      loads: [1.5],
      rss,
      postgres: { version: 'postgres 15', durable: true, sessionRows: 12 },
    });
    for (const row of json.rows) assert.equal(row.ratio, 2, row.id);
    assert.equal(json.rows.find((r: any) => r.id === 'sessions created/s').postgres.median, 100);
    assert.match(text, /POST \/session, 4 callers .* 2\.00×\s+NO/);
    assert.match(text, /durability ON/);
  });

  it('says yes within 1.5× and prints the SQLite rows alone when PostgreSQL is missing', async () => {
    const { reportCluster } = await load('lib/cluster-report.mjs');
    const near = reportCluster({ plan, blocks: { sqlite: blocksOf(1), postgres: blocksOf(1.25) }, loads: [], rss, postgres: { version: 'x', durable: true, sessionRows: 1 } });
    assert.ok(near.json.rows.every((r: any) => r.ratio === 1.25));
    assert.doesNotMatch(near.text, /\bNO\b/);
    const alone = reportCluster({ plan, blocks: { sqlite: blocksOf(1) }, loads: [], rss: { sqlite: rss.sqlite }, postgres: { skipped: 'no binaries' } });
    assert.ok(alone.json.rows.every((r: any) => r.postgres === undefined && r.ratio === undefined));
    assert.match(alone.text, /PostgreSQL: not measured \(no binaries\)/);
  });

  it('keeps a slot for 1, 2 and 3 nodes and fills it with "not measured yet"', async () => {
    const { reportCluster } = await load('lib/cluster-report.mjs');
    const { json, text } = reportCluster({ plan, blocks: { sqlite: blocksOf(1) }, loads: [], rss: {}, postgres: { skipped: 'off' } });
    assert.deepEqual(json.multiNode.nodes, [1, 2, 3]);
    assert.equal(json.multiNode.status, 'not measured yet');
    const slot = text.slice(text.indexOf('PostgreSQL + NATS'));
    assert.match(slot, /1 node\s+2 nodes\s+3 nodes/);
    assert.equal(slot.match(/not measured yet/g)?.length, 9);
    assert.doesNotMatch(slot, /\d+\.\d/);
  });
});
