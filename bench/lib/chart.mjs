// One SVG chart per benchmark result: each measured row as a bar per daemon (the median) with a
// p10–p90 rule, grouped by unit, on a log axis when a unit's values span more than 20×.
// Rendered by Vega-Lite in Node (no browser): the result JSON is the only input.

/** A summary the benchmarks write: at least a median and a p90. */
const isSummary = (v) => v !== null && typeof v === 'object' && Number.isFinite(v.median) && Number.isFinite(v.p90);

/** Keys that hold raw material, not results (per-boot samples, the machine, response probes). */
const SKIP = new Set(['boots', 'machine', 'probes', 'berthBuild', 'plan', 'settle', 'statuses', 'fixture', 'loads']);

/** The name a row goes by: its id, path or the words that tell rows apart (placement, kind, op, name). */
function rowName(o, fallback) {
  if (typeof o.id === 'string') return o.id;
  if (typeof o.path === 'string') return o.path;
  const words = ['placement', 'kind', 'op', 'name'].map((k) => o[k]).filter((w) => typeof w === 'string');
  return words.length > 0 ? words.join(' ') : fallback;
}

/**
 * Every plotted point in a result: `{row, series, unit, median, p10, p90}`. A row either holds one
 * summary per daemon (`{id, peer: {...}, berth: {...}}`), or is itself a summary of one daemon's
 * measurement, with `where` naming the series when the row has one (`{kind, where, median, ...}`).
 */
export function chartPoints(result) {
  const points = [];
  const visit = (node, key) => {
    if (Array.isArray(node)) return node.forEach((child, i) => visit(child, `${key}[${i}]`));
    if (node === null || typeof node !== 'object') return;
    const unit = typeof node.unit === 'string' ? node.unit : 'ms';
    const children = Object.entries(node).filter(([k, v]) => !SKIP.has(k) && isSummary(v));
    if (children.length > 0) {
      for (const [series, s] of children) points.push(point(rowName(node, key), series, unit, s));
    } else if (isSummary(node)) {
      points.push(point(rowName(node, key), typeof node.where === 'string' ? node.where : 'berth', unit, node));
      return;
    }
    for (const [k, v] of Object.entries(node)) if (!SKIP.has(k) && !isSummary(v)) visit(v, k);
  };
  visit(result, result.benchmark ?? 'result');
  return points;
}

function point(row, series, unit, s) {
  return { row, series, unit, median: s.median, p10: Number.isFinite(s.p10) ? s.p10 : s.median, p90: s.p90 };
}

/** The Vega-Lite spec: one panel per unit, rows down the side, one bar per series. */
export function chartSpec(result, points) {
  const units = [...new Set(points.map((p) => p.unit))];
  const build = result.berthBuild?.commit ? `berth ${result.berthBuild.commit}${result.berthBuild.srcDirty ? '+' : ''}` : 'berth';
  const m = result.machine;
  const subtitle = [
    `${build} · ${String(result.startedAt ?? '').slice(0, 16).replace('T', ' ')} UTC`,
    m ? `${m.cpus} × ${m.cpuModel}, node ${m.node}, load ${m.loadavgAtStart?.join(' ')}` : '',
    'bar: median · line: p10–p90',
  ].filter(Boolean);
  const panel = (unit) => {
    const mine = points.filter((p) => p.unit === unit);
    const values = mine.flatMap((p) => [p.p10, p.median, p.p90]).filter((v) => v > 0);
    const log = values.length > 0 && Math.max(...values) / Math.min(...values) > 20;
    // A log axis has no zero, so bars start at the power of ten below the smallest value.
    const base = log ? 10 ** Math.floor(Math.log10(Math.min(...values))) : 0;
    const x = { type: 'quantitative', title: unit, scale: log ? { type: 'log', domainMin: base } : { zero: true } };
    return {
      width: 520,
      data: { values: mine.map((p) => ({ ...p, base, low: log ? Math.max(p.p10, base) : p.p10 })) },
      encoding: {
        y: { field: 'row', type: 'nominal', title: null, sort: null, axis: { labelLimit: 320 } },
        yOffset: { field: 'series', sort: null },
        color: { field: 'series', type: 'nominal', sort: null, title: null, scale: { range: ['#8a8f98', '#2f6fde', '#e08a1e', '#3aa55d'] } },
      },
      layer: [
        { mark: { type: 'bar' }, encoding: { x: { ...x, field: 'base' }, x2: { field: 'median' } } },
        { mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x: { ...x, field: 'low' }, x2: { field: 'p90' }, color: { value: '#222' } } },
      ],
    };
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: `${result.benchmark}: ${result.chartTitle ?? 'Berth beside the peer'}`, subtitle, anchor: 'start' },
    config: { font: 'sans-serif', view: { stroke: null } },
    resolve: { scale: { x: 'independent' } },
    vconcat: units.map(panel),
  };
}

/** The SVG text for `result`, or null when it holds nothing to plot. */
export async function renderChart(result) {
  const points = chartPoints(result);
  if (points.length === 0) return null;
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const spec = vegaLite.compile(chartSpec(result, points)).spec;
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
