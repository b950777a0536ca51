// The peer daemon: `qwen serve` from @qwen-code/qwen-code@0.24.4, started exactly the way the
// reference captures and BASELINE.md ran it (shared/reference/qwen-serve/INDEX.md "How these were
// produced"): a temp HOME holding .qwen/settings.json with the openai auth type pointed at the
// scripted model, `--hostname 127.0.0.1 --port 0 --workspace <ws> --no-web`, cwd = the workspace.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { modelEnv } from './lib/model-ids.mjs';
import { ensurePeer } from './lib/peer-install.mjs';
import { qwenSettings } from './lib/qwen-settings.mjs';
import { startTimedDaemon } from './lib/timed-daemon.mjs';

/**
 * Installs the peer if needed, starts it on `workspace` with its HOME under `scratch`, and waits
 * until it listens. `ready()` then waits for `/health?deep=1` 200: the peer serves /health ~0.5 s
 * after spawn but boots its workspace runtime and `qwen --acp` child ~1.1 s later (BASELINE.md),
 * and that boot must not overlap the measurements. `extraArgs` go to `qwen serve` (e.g. `--allow-origin`).
 */
export async function startPeer({ workspace, scratch, modelUrl, nodeArgs = [], extraArgs = [] }) {
  const entry = await ensurePeer();
  const home = join(scratch, 'peer-home');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify(qwenSettings(modelUrl), null, 2) + '\n');
  return startTimedDaemon('qwen serve 0.24.4', {
    name: 'qwen serve',
    command: process.execPath,
    args: [...nodeArgs, entry, 'serve', '--hostname', '127.0.0.1', '--port', '0', '--workspace', workspace, '--no-web', ...extraArgs],
    cwd: workspace,
    env: {
      ...process.env,
      HOME: home,
      USERPROFILE: home,
      LANG: 'C.UTF-8',
      NO_COLOR: '1',
      CI: '1',
      ...modelEnv(modelUrl),
    },
    ready: /qwen serve listening on (http:\/\/\S+)/,
  });
}
