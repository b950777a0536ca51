// Summarises a V8 .cpuprofile (written by `node --cpu-prof`): self time by function and by file,
// so "where does Berth spend a /glob" can be answered without a GUI.
// Usage: node bench/lib/cpuprofile-top.mjs <file.cpuprofile> [rows]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Self time (ms) per function and per script, largest first; percentages are of busy (non-idle) time. */
export function topSelfTime(profile, rows = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  // timeDeltas[i] is the time between samples i-1 and i, charged to samples[i].
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const fn = new Map();
  const file = new Map();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    const shortUrl = url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/dist\//, 'dist/');
    const fnKey = `${functionName || '(anonymous)'}  ${shortUrl || '(native)'}:${lineNumber + 1}`;
    const fileKey = shortUrl || `(native ${functionName || '?'})`;
    fn.set(fnKey, (fn.get(fnKey) ?? 0) + us);
    file.set(fileKey, (file.get(fileKey) ?? 0) + us);
    total += us;
  }
  const top = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([key, us]) => ({ key, ms: us / 1000, pct: (100 * us) / total }));
  return { busyMs: total / 1000, idleMs: idle / 1000, functions: top(fn), files: top(file) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [path, rows] = process.argv.slice(2);
  const summary = topSelfTime(JSON.parse(readFileSync(path, 'utf8')), Number(rows ?? 25));
  const line = (r) => `${r.ms.toFixed(1).padStart(9)} ms ${r.pct.toFixed(1).padStart(5)} %  ${r.key}`;
  console.log(`busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms\n\nself time by function:`);
  summary.functions.forEach((r) => console.log(line(r)));
  console.log('\nself time by file:');
  summary.files.forEach((r) => console.log(line(r)));
}
