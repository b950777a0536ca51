// Output of a benchmark run: a plain-text table on stdout and a JSON file under bench/results/
// (git-ignored), plus the machine note every number needs to be read against.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
const chartsDir = fileURLToPath(new URL('../charts/', import.meta.url));

/** What the numbers were measured on. */
export function machineNote() {
  const list = cpus();
  return {
    node: process.version,
    platform: `${platform()} ${release()}`,
    cpus: list.length,
    cpuModel: list[0]?.model ?? 'unknown',
    memGiB: Math.round(totalmem() / 2 ** 30),
    loadavgAtStart: loadavg().map((x) => Number(x.toFixed(2))),
  };
}

/** Renders rows (arrays of cells) under a header as an aligned text table. */
export function formatTable(header, rows) {
  const cells = [header, ...rows].map((r) => r.map((c) => (c === undefined || c === null ? '' : String(c))));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** Writes `data` to bench/results/<name>-<timestamp>.json and returns the path. */
export function writeResult(name, data, now = new Date()) {
  mkdirSync(resultsDir, { recursive: true });
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const path = join(resultsDir, `${name}-${stamp}.json`);
  writeFileSync(path, JSON.stringify(data, null, 2) + '\n');
  return path;
}

/**
 * Writes a run's chart beside its JSON and, for a full run (`latest`), as bench/charts/<name>.svg,
 * the tracked copy bench/README.md shows. Returns the paths written.
 */
export function writeChart(name, svg, now = new Date(), { latest }) {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const paths = [join(resultsDir, `${name}-${stamp}.svg`)];
  if (latest) paths.push(join(chartsDir, `${name}.svg`));
  for (const path of paths) {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, svg);
  }
  return paths;
}
