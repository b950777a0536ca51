import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { spawnBerth } from './daemon.js';

const repoRoot = new URL('../..', import.meta.url).pathname;

/** `berth token create --app …` as a user runs it: the token is the only thing on stdout. */
export async function createAppToken(home: string, name: string, maxPolicy: string): Promise<string> {
  const child = spawnBerth(['token', 'create', '--app', name, '--max-policy', maxPolicy, '--home', home]);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0);
  assert.match(out, /^berth_app_\S+\n$/);
  return out.trim();
}

export interface NotesApp {
  readonly child: ChildProcess;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/** `examples/notes-app.ts` in its own process, its token in its environment, once it says it is connected. */
export async function startNotesApp(url: string, token: string): Promise<NotesApp> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/notes-app.ts', '--url', url], {
    cwd: repoRoot,
    env: { ...process.env, BERTH_APP_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('notes app connected')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`notes app exited with ${code}: ${err}`)));
  });
  return {
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
