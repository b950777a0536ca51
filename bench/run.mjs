#!/usr/bin/env node
// `npm run bench [-- <benchmark …>] [--quick] [--profile]`: runs the named benchmarks (default: all),
// each side by side with the peer, prints its table and writes its JSON to bench/results/.
// `--profile` also writes both daemons' V8 CPU profiles to bench/results/profiles-<time>/.
// One file per benchmark; each exports {name, description, run({quick, profileDir, log}) → {text, json}}.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { berthDir } from './berth.mjs';
import { renderChart } from './lib/chart.mjs';
import { machineNote, writeChart, writeResult } from './lib/report.mjs';

/** The benchmarks, in the order a full run takes them. */
const BENCHMARKS = {
  reads: () => import('./reads.mjs'),
  sessions: () => import('./sessions.mjs'),
  fanout: () => import('./fanout.mjs'),
  gateway: () => import('./gateway.mjs'),
  toolproto: () => import('./toolproto.mjs'),
  modules: () => import('./modules.mjs'),
  history: () => import('./history.mjs'),
  mcp: () => import('./mcp.mjs'),
  agent: () => import('./agent.mjs'),
  web: () => import('./web.mjs'),
  agents: () => import('./agents.mjs'),
  cluster: () => import('./cluster.mjs'),
};

const KNOWN_FLAGS = ['--quick', '--profile', '--help'];

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Berth runs from dist/; measuring a stale build would measure yesterday's code. */
function warnIfBuildIsStale(dir) {
  const built = join(dir, 'dist', 'cli', 'main.js');
  if (!existsSync(built)) {
    console.error(`bench: ${join(dir, 'dist')} is missing; run \`npm run build\` first`);
    process.exit(2);
  }
  if (newestMtime(join(dir, 'src')) > statSync(built).mtimeMs) {
    console.error('bench: warning: src/ is newer than dist/; run `npm run build` to measure the current code');
  }
}

/** Which code was measured: the checkout's commit and whether its tree had uncommitted changes. */
function describeBuild(dir) {
  const git = (...args) => spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return { dir, commit: null };
  const dirty = git('status', '--porcelain', '--untracked-files=no', '--', 'src').stdout.trim() !== '';
  return { dir, commit: head.stdout.trim(), srcDirty: dirty };
}

async function main(argv) {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const names = argv.filter((a) => !a.startsWith('--'));
  const unknown = [...names.filter((n) => !(n in BENCHMARKS)), ...[...flags].filter((f) => !KNOWN_FLAGS.includes(f))];
  if (unknown.length > 0 || flags.has('--help')) {
    console.error(`usage: npm run bench -- [${Object.keys(BENCHMARKS).join('|')} …] [--quick] [--profile]`);
    process.exit(unknown.length > 0 ? 2 : 0);
  }
  const dir = berthDir();
  if (dir !== repoRoot) console.log(`berth: ${dir}`);
  warnIfBuildIsStale(dir);
  const machine = machineNote();
  const build = describeBuild(dir);
  console.log(`berth build: ${build.commit ?? 'not a git checkout'}${build.srcDirty ? ' with uncommitted changes in src/' : ''}`);
  console.log(`machine: ${machine.cpus} x ${machine.cpuModel}, ${machine.memGiB} GiB, ${machine.platform}, node ${machine.node}, load ${machine.loadavgAtStart.join(' ')}`);
  for (const name of names.length > 0 ? names : Object.keys(BENCHMARKS)) {
    const bench = await BENCHMARKS[name]();
    console.log(`\n== ${bench.name}: ${bench.description}${flags.has('--quick') ? ' (quick)' : ''}`);
    const startedAt = new Date();
    const profileDir = flags.has('--profile') ? join(repoRoot, 'bench', 'results', `profiles-${bench.name}-${startedAt.toISOString().replace(/[:.]/g, '-')}`) : undefined;
    const result = await bench.run({ quick: flags.has('--quick'), profileDir });
    console.log(result.text);
    const data = { benchmark: bench.name, startedAt: startedAt.toISOString(), quick: flags.has('--quick'), machine, berthBuild: build, ...result.json };
    const path = writeResult(bench.name, data, startedAt);
    console.log(`\nwritten: ${path}`);
    const svg = await renderChart(data);
    if (svg) for (const chart of writeChart(bench.name, svg, startedAt, { latest: !flags.has('--quick') })) console.log(`chart: ${chart}`);
  }
}

await main(process.argv.slice(2));
