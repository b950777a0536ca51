import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentSpec } from '../../src/config/agents.js';

/** The bench's plain-JavaScript helpers, loaded untyped. */
const bench = (path: string): Promise<any> => import(new URL(`../../bench/lib/${path}`, import.meta.url).href);
// The names the reference captures used (bench/lib/model-ids.mjs).
const { modelEnv } = (await bench('model-ids.mjs')) as { modelEnv: (url: string) => Record<string, string> };

const { qwenSettings } = (await bench('qwen-settings.mjs')) as { qwenSettings: (url: string) => object };

export const QWEN_AGENT_ID = 'qwen';

/** The CLI entry of `@qwen-code/qwen-code@0.24.4`, installed into the bench cache on first use. */
export async function qwenEntry(): Promise<string> {
  // The same on-demand install the bench uses for `qwen serve` (a cache folder, never a dependency;
  // $BERTH_BENCH_CACHE shares one); a finished install is reused as it is.
  const { ensurePeer } = await bench('peer-install.mjs');
  return ensurePeer({ log: () => {} });
}

/** `qwen --acp` as a Berth agent, on the scripted model (the settings and environment the reference captures used). */
export function qwenAgentSpec(entry: string, modelUrl: string): AgentSpec {
  return {
    id: QWEN_AGENT_ID,
    command: process.execPath,
    args: [entry, '--acp'],
    env: { ...modelEnv(modelUrl), LANG: 'C.UTF-8', NO_COLOR: '1', CI: '1' },
    cwdMode: 'workspace',
  };
}

/** Writes qwen's settings into the private HOME Berth gives the agent (`$BERTH_HOME/agents/qwen/home`). */
export function writeQwenSettings(berthHome: string, modelUrl: string): void {
  const home = join(berthHome, 'agents', QWEN_AGENT_ID, 'home');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  const settings = qwenSettings(modelUrl);
  writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
}
