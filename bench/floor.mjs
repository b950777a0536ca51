// The floor daemon (bench/floor/server.mjs) started like the other two: same timing helper, same
// workspace, same scripted model. It answers only the measured routes, as directly as Node can.
import { fileURLToPath } from 'node:url';
import { modelEnv } from './lib/model-ids.mjs';
import { startTimedDaemon } from './lib/timed-daemon.mjs';

const entry = fileURLToPath(new URL('./floor/server.mjs', import.meta.url));

/** Starts the floor on `workspace` and waits for its listening line. */
export function startFloor({ workspace, modelUrl, nodeArgs = [] }) {
  return startTimedDaemon('floor', {
    name: 'floor',
    command: process.execPath,
    args: [...nodeArgs, entry, '--workspace', workspace],
    cwd: workspace,
    env: { ...process.env, ...modelEnv(modelUrl) },
    ready: /floor listening on (http:\/\/\S+)/,
  });
}
