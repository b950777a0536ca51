import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../src/clock.js';
import type { SessionPlacement } from '../../src/cluster/placement.js';
import { resolveConfig, type ConfigInput } from '../../src/config/config.js';
import { startDaemon, type Daemon } from '../../src/main/daemon.js';
import type { DaemonStore } from '../../src/main/store.js';
import type { Db } from '../../src/store/sqlite.js';
import { silentLogger } from '../../src/log.js';
import type { SandboxProbe } from '../../src/tools/builtin/commands/sandbox.js';
import { removeDir, tempDir, writeTree } from './tmp.js';

export interface TestDaemon {
  readonly daemon: Daemon;
  readonly url: string;
  readonly home: string;
  /** The primary workspace root. */
  readonly workspace: string;
  /** fetch() against the daemon; `path` starts with `/`. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** JSON request helper: returns status, headers and the parsed body. */
  json(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<JsonResponse>;
  close(): Promise<void>;
}

export interface JsonResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

export interface TestDaemonOptions {
  readonly files?: Record<string, string | Buffer>;
  readonly config?: ConfigInput;
  /** Keep the home and workspace folders after close (for restart tests). */
  readonly keep?: boolean;
  readonly home?: string;
  readonly workspace?: string;
  /** The daemon's clock (default: the system clock), for rules that are functions of time. */
  readonly clock?: Clock;
  /** Whether the daemon may sandbox commands (default: what this machine offers). */
  readonly sandbox?: SandboxProbe;
  /** Where sessions run, for a daemon on a cluster bus (default: all on this node). */
  readonly placement?: SessionPlacement;
}

/**
 * Starts a real daemon in this process on a loopback port (port 0), with a fresh
 * home and workspace. Tests talk to it over real HTTP.
 */
export async function startTestDaemon(options: TestDaemonOptions = {}): Promise<TestDaemon> {
  const home = options.home ?? tempDir('berth-home-');
  const workspace = options.workspace ?? tempDir('berth-ws-');
  if (options.files) writeTree(workspace, options.files);
  const config = resolveConfig(
    { port: 0, hostname: '127.0.0.1', home, workspaces: [workspace], logLevel: 'silent', ...options.config },
    {},
  );
  const daemon = await startDaemon({
    config,
    log: silentLogger(),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.placement ? { placement: options.placement } : {}),
  });
  const url = daemon.url;
  const token = config.token;
  const doFetch = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (token && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
    return fetch(url + path, { ...init, headers });
  };
  return {
    daemon,
    url,
    home,
    workspace,
    fetch: doFetch,
    async json(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      }
      const res = await doFetch(path, init);
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        /* keep text */
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
    async close() {
      await daemon.close();
      if (!options.keep) {
        if (!options.home) removeDir(home);
        if (!options.workspace) removeDir(workspace);
      }
    },
  };
}

const repoRoot = new URL('../..', import.meta.url).pathname;

/**
 * The `berth` command as a child process: from source through tsx, or `built`, the way
 * `npm install` ships it (bin/berth.js on the bundle in dist/bundle/, which `npm ci` builds).
 */
export function spawnBerth(args: readonly string[], env: NodeJS.ProcessEnv = {}, built = false): ChildProcess {
  const entry = built ? [join(repoRoot, 'bin/berth.js')] : ['--import', 'tsx', join(repoRoot, 'src/cli/main.ts')];
  return spawn(process.execPath, [...entry, ...args], {
    cwd: repoRoot,
    env: { ...process.env, BERTH_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface SpawnedDaemon {
  readonly child: ChildProcess;
  readonly url: string;
  stderr(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
}

/** Starts `berth serve --port 0 …` as a child process (see spawnBerth for `built`) and waits for its listening line. */
export async function spawnDaemon(args: readonly string[], env: NodeJS.ProcessEnv = {}, built = false): Promise<SpawnedDaemon> {
  const child = spawnBerth(['serve', '--port', '0', ...args], env, built);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /berth listening on (\S+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`berth exited with ${code} before listening: ${err}`)));
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    url,
    stderr: () => err,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export function ensureDir(path: string): string {
  mkdirSync(path, { recursive: true });
  return path;
}

/** The SQLite database under a daemon the tests started on the default engine (tests that read or break rows directly). */
export function sqliteDb(daemon: { readonly store: DaemonStore }): Db {
  if (daemon.store.engine !== 'sqlite') throw new Error('this test reads the SQLite store directly; the daemon runs on PostgreSQL');
  return daemon.store.db;
}
