// The scripted model both daemons talk to: the project's own OpenAI-compatible scripted server
// (src/devtools/scripted-model/, instant default reply "OK."), run in a child process so its work
// never shares the benchmark client's event loop. The harness knows it only through
// `startModel()` → `{url, close}`; `url` is the OpenAI base URL (ending in /v1).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MODEL_API_KEY, MODEL_IDS } from './model-ids.mjs';
import { startDaemonProcess } from './daemon-process.mjs';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const builtEntry = fileURLToPath(new URL('../../dist/devtools/scripted-model/main.js', import.meta.url));
const sourceEntry = fileURLToPath(new URL('../../src/devtools/scripted-model/main.ts', import.meta.url));

/** The OpenAI-compatible base URL: the scripted model serves under /v1 like the real APIs. */
function asBaseUrl(url) {
  const trimmed = url.replace(/\/+$/, '');
  return /\/v1$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/**
 * Starts the scripted model. `$BERTH_BENCH_MODEL_URL` names an already running
 * OpenAI-compatible server instead (then `close()` does nothing).
 * Prefers the build (dist/, no tsx start-up) and falls back to the sources through tsx.
 */
export async function startModel() {
  const given = process.env.BERTH_BENCH_MODEL_URL;
  if (given && given.trim() !== '') return { url: asBaseUrl(given.trim()), close: async () => {} };

  let args;
  if (existsSync(builtEntry)) args = [builtEntry];
  else if (existsSync(sourceEntry)) args = ['--import', 'tsx', sourceEntry];
  else {
    throw new Error(
      'bench: the scripted model (src/devtools/scripted-model/main.ts) is not in this tree yet; ' +
        'set BERTH_BENCH_MODEL_URL to an OpenAI-compatible base URL to run without it',
    );
  }
  const proc = await startDaemonProcess({
    name: 'scripted model',
    command: process.execPath,
    // The model checks the key both daemons send, and lists the ids the peer's settings name.
    args: [...args, '--port', '0', '--models', MODEL_IDS.join(','), '--api-key', MODEL_API_KEY],
    cwd: repoRoot,
    env: { ...process.env },
    ready: /scripted model listening on (\S+)/,
  });
  return { url: asBaseUrl(proc.url), pid: proc.pid, close: proc.stop };
}
