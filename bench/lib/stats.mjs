// Order statistics for latency samples. Medians and p90 are what the benchmarks report (p10 too,
// for the charts' spread bars);
// means are kept only as a hint of skew.

/** The q-quantile (0..1) by linear interpolation between closest ranks. */
export function quantile(samples, q) {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export const median = (samples) => quantile(samples, 0.5);

/** `{n, median, p10, p90, min, max, mean}` of a list of numbers. */
export function summarize(samples) {
  const n = samples.length;
  return {
    n,
    median: median(samples),
    p10: quantile(samples, 0.1),
    p90: quantile(samples, 0.9),
    min: n ? Math.min(...samples) : NaN,
    max: n ? Math.max(...samples) : NaN,
    mean: n ? samples.reduce((a, b) => a + b, 0) / n : NaN,
  };
}

/** Rounds for display and JSON: 3 significant decimals below 10, 2 below 100, else 1. */
export function round(value) {
  if (!Number.isFinite(value)) return value;
  const digits = Math.abs(value) < 10 ? 3 : Math.abs(value) < 100 ? 2 : 1;
  return Number(value.toFixed(digits));
}

/** `row` with each of its numbers rounded as `round` does, for the JSON result. */
export function roundNumbers(row) {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v]));
}
