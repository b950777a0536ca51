import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedModel, type ScriptedModel } from '../../src/devtools/scripted-model/index.js';
import { spawnDaemon, type SpawnedDaemon } from './daemon.js';
import { SCRIPTED_MODELS, SCRIPTED_SERVICE } from './stack.js';
import { removeDir, tempDir } from './tmp.js';

/**
 * The end-to-end setup of the crash and restart tests: `berth serve` as real
 * processes started one after another on the same home and workspace, with
 * the scripted model as the home's model service (`config.json`), since a
 * spawned daemon cannot be handed one in process as `startStack` does.
 */
export interface SpawnedStack {
  readonly model: ScriptedModel;
  readonly home: string;
  readonly workspace: string;
  /** Starts `berth serve` on the home and workspace, with `args` after them. */
  serve(...args: string[]): Promise<SpawnedDaemon>;
  /** SIGKILLs every daemon it served, closes the model and removes both folders. */
  close(): Promise<void>;
}

/** `env`: added to every daemon's environment (NODE_OPTIONS for a heap cap, say), not to this process's. */
export async function startSpawnedStack(options: { env?: NodeJS.ProcessEnv } = {}): Promise<SpawnedStack> {
  const model = await startScriptedModel({ port: 0 });
  const home = tempDir('berth-home-');
  const workspace = tempDir('berth-ws-');
  const defaultModel = SCRIPTED_MODELS[0]!;
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ modelServices: [{ id: SCRIPTED_SERVICE, baseUrl: model.url, models: [{ id: defaultModel }], defaultModel }] }),
  );
  const daemons: SpawnedDaemon[] = [];
  return {
    model,
    home,
    workspace,
    async serve(...args) {
      const d = await spawnDaemon(['--home', home, '--workspace', workspace, ...args], options.env);
      daemons.push(d);
      return d;
    },
    async close() {
      await Promise.all(daemons.map((d) => d.kill()));
      await model.close();
      removeDir(home);
      removeDir(workspace);
    },
  };
}
