// Berth as a user runs it: the compiled build (`npm run build` → dist/) through bin/berth.js,
// `serve --port 0 --workspace <ws> --home <tmp>`, with the same scripted-model environment the
// peer gets. Runs from dist so no TypeScript loader sits in the measured process.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTimedDaemon } from './lib/timed-daemon.mjs';
import { modelEnv } from './lib/model-ids.mjs';

/**
 * The Berth checkout to run: this repository, or `$BERTH_BENCH_BERTH_DIR` (another built checkout,
 * e.g. a clean export of a commit, to measure it while this work tree is mid-edit).
 */
export function berthDir() {
  const given = process.env.BERTH_BENCH_BERTH_DIR;
  return given && given.trim() !== '' ? resolve(given) : fileURLToPath(new URL('..', import.meta.url));
}

/** Starts Berth on `workspace` with its home under `scratch` and waits for its listening line. */
/** `nodeArgs` go to node itself (e.g. `--cpu-prof`), `extraArgs` to `berth serve`. */
export async function startBerth({ workspace, scratch, modelUrl, nodeArgs = [], extraArgs = [] }) {
  const dir = berthDir();
  const bin = join(dir, 'bin', 'berth.js');
  if (!existsSync(join(dir, 'dist', 'cli', 'main.js'))) {
    throw new Error(`bench: ${join(dir, 'dist')} is missing; run \`npm run build\` first (Berth runs from its build)`);
  }
  const home = join(scratch, 'berth-home');
  mkdirSync(home, { recursive: true });
  return startTimedDaemon('berth', {
    name: 'berth',
    command: process.execPath,
    args: [...nodeArgs, bin, 'serve', '--port', '0', '--workspace', workspace, '--home', home, ...extraArgs],
    cwd: workspace,
    env: { ...process.env, ...modelEnv(modelUrl) },
    ready: /berth listening on (http:\/\/\S+)/,
  });
}
