import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * The demo's two child processes — the scripted model and the Berth daemon —
 * started the way a newcomer would start them, and stopped together.
 */

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs from source through tsx when it is installed (a checkout with dev
 * dependencies: always the code you are looking at, no build step), else from
 * the compiled dist/ that `npm install` builds.
 */
export function entryPoints() {
  let tsx = false;
  try {
    createRequire(import.meta.url).resolve('tsx');
    tsx = true;
  } catch {
    /* not installed: use dist */
  }
  if (tsx) {
    return {
      how: 'from source (tsx)',
      berth: ['--import', 'tsx', 'src/cli/main.ts'],
      model: ['--import', 'tsx', 'src/devtools/scripted-model/main.ts'],
    };
  }
  if (!existsSync(new URL('../../dist/bundle/main.js', import.meta.url))) {
    throw new Error('neither tsx nor dist/ is available: run `npm install` first');
  }
  return {
    how: 'from dist/',
    berth: ['bin/berth.js'],
    model: ['dist/devtools/scripted-model/main.js'],
  };
}

/** `preferred` when nothing listens there, else 0 (a free port the daemon picks). */
export function portOrFree(preferred) {
  if (preferred === 0) return Promise.resolve(0);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(0));
    probe.listen(preferred, '127.0.0.1', () => probe.close(() => resolve(preferred)));
  });
}

/** Spawns `node <args>` in the repository and resolves with the first match of `ready` on its stdout. */
function startChild(name, args, env, ready) {
  const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const match = new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`${name} exited (${signal ?? code}) before it was ready:\n${err.trim()}`)));
  });
  return { child, exited, match, stderr: () => err };
}

export class Children {
  constructor() {
    /** @type {{ name: string, child: import('node:child_process').ChildProcess, exited: Promise<unknown> }[]} */
    this.running = [];
    this.stopping = undefined;
  }

  async start(name, args, env, ready) {
    const started = startChild(name, args, env, ready);
    this.running.push({ name, child: started.child, exited: started.exited });
    const value = await started.match;
    return { value, pid: started.child.pid };
  }

  /** SIGTERM to every child (the daemon first), then wait for all to exit. Idempotent. */
  stop() {
    this.stopping ??= (async () => {
      for (const { child, exited } of [...this.running].reverse()) {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      }
    })();
    return this.stopping;
  }
}

/** The daemon's environment: no model settings of yours leak in; the scripted service comes from the home config. */
export function cleanEnv(extra = {}) {
  const env = { ...process.env };
  for (const key of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_MODEL', 'BERTH_TOKEN', 'BERTH_HOME']) delete env[key];
  return { ...env, ...extra };
}
