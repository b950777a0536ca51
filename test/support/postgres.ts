/**
 * A real PostgreSQL for tests, from the Debian server binaries (package `postgresql`):
 * initdb into a fresh temp folder, `postgres` on a free port of 127.0.0.1 only, its
 * unix socket inside the temp folder, durability off for speed; a database per test
 * file; stopped by PID at the end. PostgreSQL refuses to run as root, so when the
 * tests run as root (CI) the cluster runs as the Debian `postgres` user (setpriv, or
 * runuser) in a folder it owns. Without the binaries (or with BERTH_TEST_POSTGRES=off)
 * `postgresMissing()` says why and the tests that need it skip.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { removeDir, tempDir } from './tmp.js';

const SUPERUSER = 'berth';

/** The folder holding `initdb` and `postgres`: `pg_config --bindir`, else the newest /usr/lib/postgresql/N/bin. */
export function postgresBinDir(): string | undefined {
  const has = (dir: string) => existsSync(join(dir, 'postgres')) && existsSync(join(dir, 'initdb'));
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (has(dir)) return dir;
  } catch {
    // no pg_config (libpq-dev): look where Debian puts the servers
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, 'bin')).find(has);
}

interface RunAs {
  readonly uid: number;
  readonly gid: number;
  /** The command line prefix that drops to that user. */
  readonly prefix: string[];
}

/** When root: the `postgres` user and how to become it; otherwise undefined (run as ourselves). */
function runAs(): RunAs | undefined | string {
  if (process.getuid?.() !== 0) return undefined;
  let uid: number;
  let gid: number;
  try {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  } catch {
    return 'running as root and there is no `postgres` user to run PostgreSQL as';
  }
  const which = (cmd: string) => ['/usr/bin', '/bin', '/usr/sbin', '/sbin'].some((d) => existsSync(join(d, cmd)));
  // setpriv execs in place, so the PID we hold is the server's own.
  if (which('setpriv')) return { uid, gid, prefix: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'] };
  if (which('runuser')) return { uid, gid, prefix: ['runuser', '-u', 'postgres', '--'] };
  return 'running as root and neither setpriv nor runuser is there to become `postgres`';
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresMissing(): string | undefined {
  if (process.env.BERTH_TEST_POSTGRES === 'off') return 'BERTH_TEST_POSTGRES=off: the PostgreSQL tests are turned off';
  if (!postgresBinDir()) return 'PostgreSQL server binaries not found (pg_config --bindir, /usr/lib/postgresql/*/bin): install the Debian package postgresql';
  const as = runAs();
  return typeof as === 'string' ? as : undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface PostgresServer {
  readonly port: number;
  /** A URL for a new, empty database on this server. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

function spawnAs(as: RunAs | undefined, cmd: string, args: string[], cwd: string): ChildProcess {
  const argv = as ? [...as.prefix, cmd, ...args] : [cmd, ...args];
  return spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' } });
}

function finished(child: ChildProcess, output: string[]): Promise<number> {
  child.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
}

/** Starts a throwaway cluster; throws if it cannot (call postgresMissing() first to skip instead). */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const as = runAs();
  if (!bin || typeof as === 'string') throw new Error(postgresMissing());
  const root = tempDir('berth-pg-');
  const data = join(root, 'data');
  const sockets = join(root, 'sockets');
  mkdirSync(sockets);
  if (as) {
    chownSync(root, as.uid, as.gid);
    chownSync(sockets, as.uid, as.gid);
  }
  const initOut: string[] = [];
  const initCode = await finished(
    spawnAs(as, join(bin, 'initdb'), ['-D', data, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'], root),
    initOut,
  );
  if (initCode !== 0) {
    removeDir(root);
    throw new Error(`initdb failed (${initCode}): ${initOut.join('').slice(-2000)}`);
  }

  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const out: string[] = [];
    const child = spawnAs(as, join(bin, 'postgres'), [
      '-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', sockets,
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
      '-c', 'max_connections=40', '-c', 'shared_buffers=32MB', '-c', 'log_min_messages=warning',
    ], root);
    const exited = finished(child, out);
    const url = (db: string) => `postgres://${SUPERUSER}@127.0.0.1:${port}/${db}`;
    const ready = await waitReady(url('postgres'), exited);
    if (ready) {
      const pid = child.pid!;
      // A test process killed by a signal runs no exit handler: this watchdog stops the server
      // (immediate shutdown, by PID) and removes its folder once our process is gone.
      const watchdog = spawn('sh', ['-c', 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -QUIT "$2" 2>/dev/null; sleep 1; rm -rf "$3"', 'pg-watchdog', String(process.pid), String(pid), root], {
        detached: true,
        stdio: 'ignore',
      });
      watchdog.unref();
      const stopAtExit = () => {
        for (const p of [watchdog.pid, pid]) {
          try {
            if (p !== undefined) process.kill(p, p === pid ? 'SIGQUIT' : 'SIGTERM');
          } catch {
            // already gone
          }
        }
      };
      process.once('exit', stopAtExit);
      let databases = 0;
      let stopping: Promise<void> | undefined;
      return {
        port,
        async createDatabase(name = `t${process.pid}_${++databases}`) {
          const admin = new pg.Client({ connectionString: url('postgres') });
          await admin.connect();
          try {
            await admin.query(`CREATE DATABASE "${name}"`);
          } finally {
            await admin.end();
          }
          return url(name);
        },
        stop() {
          stopping ??= (async () => {
            process.removeListener('exit', stopAtExit);
            if (watchdog.pid !== undefined) process.kill(watchdog.pid, 'SIGTERM');
            // SIGINT: PostgreSQL's fast shutdown (rolls back open transactions, then exits).
            process.kill(pid, 'SIGINT');
            await exited;
            removeDir(root);
          })();
          return stopping;
        },
      };
    }
    lastError = out.join('');
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  }
  removeDir(root);
  throw new Error(`postgres did not start: ${lastError.slice(-2000)}`);
}

/** Polls until the server accepts a connection (true), or it exits or 30 s pass (false). */
async function waitReady(url: string, exited: Promise<number>): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 30_000;
  while (!gone && Date.now() < deadline) {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return false;
}
