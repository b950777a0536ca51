// The benchmarks' charts: which numbers of a result become points, and that the SVG drawn from
// them names every row and draws one bar per daemon and row.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

// Plain .mjs loaded by URL, as in harness.test.ts: no declarations for tsc to ask for.
const load = (path: string): Promise<any> => import(new URL(`../../../bench/${path}`, import.meta.url).href);

const stats = (median: number, spread = 1) => ({ n: 10, median, p10: median - spread / 2, p90: median + spread, min: 0, max: 99, mean: median });

const sideBySide = {
  benchmark: 'reads',
  startedAt: '2026-12-01T20:00:00.000Z',
  machine: { cpus: 2, cpuModel: 'test cpu', node: 'v20', loadavgAtStart: [0.1, 0.2, 0.3] },
  berthBuild: { commit: 'abc1234', srcDirty: false },
  cases: [
    { id: 'health', peer: stats(1.1), berth: stats(0.6), probes: { peer: { firstMs: 9, median: 3, p90: 4 } } },
    { id: 'glob wide', peer: stats(1100, 300), berth: stats(70, 20) },
  ],
};

describe('benchmark charts', () => {
  it('takes one point per daemon from side-by-side rows and none from probes or raw material', async () => {
    const { chartPoints } = await load('lib/chart.mjs');
    const points = chartPoints(sideBySide);
    assert.deepEqual(
      points.map((p: any) => [p.row, p.series, p.median]),
      [
        ['health', 'peer', 1.1],
        ['health', 'berth', 0.6],
        ['glob wide', 'peer', 1100],
        ['glob wide', 'berth', 70],
      ],
    );
    assert.equal(points[0].p10, 1.1 - 0.5);
  });

  it('reads one-daemon rows with the series from `where` and the unit a row names', async () => {
    const { chartPoints } = await load('lib/chart.mjs');
    const gateway = { benchmark: 'gateway', rows: [{ kind: 'read', where: 'channel', ...stats(1.2) }, { kind: 'read', where: 'local', ...stats(0.3) }] };
    assert.deepEqual(chartPoints(gateway).map((p: any) => [p.row, p.series, p.unit]), [['read', 'channel', 'ms'], ['read', 'local', 'ms']]);
    const memory = { benchmark: 'sessions', metrics: [{ id: 'RSS, idle', unit: 'MiB', peer: stats(400), berth: stats(60) }] };
    assert.deepEqual(chartPoints(memory).map((p: any) => p.unit), ['MiB', 'MiB']);
    const p10less = { benchmark: 'x', rows: [{ id: 'r', berth: { median: 2, p90: 3 } }] };
    assert.equal(chartPoints(p10less)[0].p10, 2, 'a summary without p10 spreads from its median');
  });

  it('draws an SVG naming each row and the build, with a bar per daemon and row', async () => {
    const { renderChart } = await load('lib/chart.mjs');
    const svg: string = await renderChart(sideBySide);
    assert.match(svg, /^<svg /);
    for (const text of ['health', 'glob wide', 'berth abc1234', 'peer']) assert.ok(svg.includes(text), `the chart shows ${text}`);
    assert.equal((svg.match(/aria-roledescription="bar"/g) ?? []).length, 4, 'one bar per daemon and row');
    assert.equal((svg.match(/aria-roledescription="rule mark"/g) ?? []).length, 4, 'one p10-p90 line per bar');
    assert.equal(await renderChart({ benchmark: 'empty', rows: [] }), null, 'nothing to plot draws nothing');
  });
});
