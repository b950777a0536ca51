// Sampling two daemons fairly on a shared, noisy machine: warm up both, then take samples in
// alternating blocks (A B, B A, A B, …) so a burst of noise lands on both daemons alike, each
// daemon on its own single keep-alive connection, one request at a time.
import { summarize } from './stats.mjs';

/**
 * `targets` = [{name, client}], `path` the request. Returns per target
 * `{samples: number[], summary, statuses}`. `rounds` × `block` samples per target.
 */
export async function sampleInterleaved(targets, path, { warmup, rounds, block }) {
  for (const t of targets) {
    for (let i = 0; i < warmup; i += 1) await t.client.get(path);
  }
  const byName = new Map(targets.map((t) => [t.name, { samples: [], statuses: new Map() }]));
  for (let r = 0; r < rounds; r += 1) {
    const order = r % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) {
      const acc = byName.get(t.name);
      for (let i = 0; i < block; i += 1) {
        const res = await t.client.get(path);
        acc.samples.push(res.ms);
        acc.statuses.set(res.status, (acc.statuses.get(res.status) ?? 0) + 1);
      }
    }
  }
  const out = {};
  for (const [name, acc] of byName) {
    out[name] = { samples: acc.samples, summary: summarize(acc.samples), statuses: Object.fromEntries(acc.statuses) };
  }
  return out;
}
