import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RecordedRequest } from './script-state.js';
import type { MatchRule, ScriptStep } from './steps.js';

/** Drives a scripted model in another process through its HTTP control routes. */
export class ScriptedModelControl {
  /** `url` is the model's base URL (ending in `/v1`), as printed by the CLI. */
  constructor(readonly url: string) {}

  private get origin(): string {
    return this.url.replace(/\/v1\/?$/, '');
  }

  async script(input: { steps?: ScriptStep[]; rules?: MatchRule[]; default?: ScriptStep; models?: string[] }): Promise<void> {
    const res = await fetch(`${this.origin}/__script`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    if (!res.ok) throw new Error(`scripted model refused the script: ${res.status} ${await res.text()}`);
  }

  enqueue(...steps: ScriptStep[]): Promise<void> {
    return this.script({ steps });
  }

  /** The recorded requests; with `min`, waits (up to the server's bound) until that many arrived. */
  async requests(min = 0, pathSuffix?: string): Promise<RecordedRequest[]> {
    const q = new URLSearchParams({ min: String(min) });
    if (pathSuffix) q.set('path', pathSuffix);
    const res = await fetch(`${this.origin}/__requests?${q}`);
    const body = (await res.json()) as { requests: RecordedRequest[] };
    return body.requests;
  }

  async reset(): Promise<void> {
    await fetch(`${this.origin}/__reset`, { method: 'POST' });
  }
}

export interface SpawnedScriptedModel {
  readonly child: ChildProcess;
  readonly control: ScriptedModelControl;
  readonly url: string;
  /** SIGTERM and wait for the exit; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts the scripted model CLI as a child process (from source through tsx,
 * or from dist when this file runs compiled) and waits for its URL line.
 */
export async function spawnScriptedModel(args: readonly string[] = []): Promise<SpawnedScriptedModel> {
  const self = fileURLToPath(import.meta.url);
  const fromSource = self.endsWith('.ts');
  const main = fileURLToPath(new URL(fromSource ? './main.ts' : './main.js', import.meta.url));
  const nodeArgs = fromSource ? ['--import', 'tsx', main] : [main];
  const child = spawn(process.execPath, [...nodeArgs, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let errText = '';
  child.stderr!.on('data', (d: Buffer) => (errText += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /scripted model listening on (\S+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`scripted model exited with ${code} before listening: ${errText}`)));
  });
  let stopping: Promise<void> | undefined;
  return {
    child,
    url,
    control: new ScriptedModelControl(url),
    stop() {
      stopping ??= (child.exitCode === null && child.signalCode === null && child.kill('SIGTERM'), exited);
      return stopping;
    },
  };
}
