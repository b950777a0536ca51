// Berth as a user runs it: the compiled build (`npm run build` → dist/) through bin/berth.js,
// `serve --port 0 --workspace <ws> --home <tmp>`, with the same scripted-model environment the
// peer gets. Runs from dist so no TypeScript loader sits in the measured process.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemonProcess } from './lib/daemon-process.mjs';
import { waitFor200 } from './lib/http-client.mjs';
import { modelEnv } from './lib/model-ids.mjs';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const bin = join(repoRoot, 'bin', 'berth.js');
const builtCli = join(repoRoot, 'dist', 'cli', 'main.js');

/** Starts Berth on `workspace` with its home under `scratch` and waits for its listening line. */
/** `nodeArgs` go to node itself (e.g. `--cpu-prof`), `extraArgs` to `berth serve`. */
export async function startBerth({ workspace, scratch, modelUrl, nodeArgs = [], extraArgs = [] }) {
  if (!existsSync(builtCli)) throw new Error('bench: dist/ is missing; run `npm run build` first (Berth runs from its build)');
  const home = join(scratch, 'berth-home');
  mkdirSync(home, { recursive: true });
  const started = process.hrtime.bigint();
  const proc = await startDaemonProcess({
    name: 'berth',
    command: process.execPath,
    args: [...nodeArgs, bin, 'serve', '--port', '0', '--workspace', workspace, '--home', home, ...extraArgs],
    cwd: workspace,
    env: { ...process.env, ...modelEnv(modelUrl) },
    ready: /berth listening on (http:\/\/\S+)/,
  });
  const listenMs = Number(process.hrtime.bigint() - started) / 1e6;
  return {
    ...proc,
    label: 'berth',
    listenMs,
    ready: () => waitFor200(`${proc.url}/health?deep=1`),
  };
}
