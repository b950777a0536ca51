// A throwaway PostgreSQL from the Debian server binaries (package `postgresql`), shared by the
// tests (test/support/postgres.ts) and the benchmarks: initdb into a fresh temp folder, `postgres`
// on a free port of 127.0.0.1 only, its unix socket inside that folder, stopped by PID. PostgreSQL
// refuses to run as root, so when we run as root (CI) the cluster runs as the Debian `postgres`
// user (setpriv, or runuser) in a folder it owns. A watchdog stops the server and removes its
// folder if our process dies without running its exit handlers (killed by a signal).
//
// Durability is a choice: the tests turn it off (fsync, synchronous_commit, full_page_writes) for
// speed; a benchmark keeps PostgreSQL's defaults so a commit costs what it costs in production.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, watchOver } from './watchdog.mjs';

const SUPERUSER = 'berth';
/** The settings that trade durability for speed: only for throwaway test data. */
const NO_DURABILITY = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];
const COMMON_SETTINGS = ['max_connections=40', 'shared_buffers=32MB', 'log_min_messages=warning'];

/** The folder holding `initdb` and `postgres`: `pg_config --bindir`, else the newest /usr/lib/postgresql/N/bin. */
export function postgresBinDir() {
  const has = (dir) => existsSync(join(dir, 'postgres')) && existsSync(join(dir, 'initdb'));
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

/**
 * When root: `{uid, gid, prefix}` for the `postgres` user (prefix: the command line that drops to
 * it); a string saying why that is impossible; or undefined when not root (run as ourselves).
 */
function runAs() {
  if (process.getuid?.() !== 0) return undefined;
  let uid;
  let gid;
  try {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  } catch {
    return 'running as root and there is no `postgres` user to run PostgreSQL as';
  }
  const which = (cmd) => ['/usr/bin', '/bin', '/usr/sbin', '/sbin'].some((d) => existsSync(join(d, cmd)));
  // setpriv execs in place, so the PID we hold is the server's own.
  if (which('setpriv')) return { uid, gid, prefix: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'] };
  if (which('runuser')) return { uid, gid, prefix: ['runuser', '-u', 'postgres', '--'] };
  return 'running as root and neither setpriv nor runuser is there to become `postgres`';
}

/** Why a PostgreSQL cannot be started here (no binaries, root without a way to drop), or undefined. */
export function postgresUnavailable() {
  if (!postgresBinDir()) return 'PostgreSQL server binaries not found (pg_config --bindir, /usr/lib/postgresql/*/bin): install the Debian package postgresql';
  const as = runAs();
  return typeof as === 'string' ? as : undefined;
}

/** Why PostgreSQL tests cannot run here (also BERTH_TEST_POSTGRES=off), or undefined when they can. */
export function postgresMissing() {
  if (process.env.BERTH_TEST_POSTGRES === 'off') return 'BERTH_TEST_POSTGRES=off: the PostgreSQL tests are turned off';
  return postgresUnavailable();
}

function spawnAs(as, cmd, args, cwd) {
  const argv = as ? [...as.prefix, cmd, ...args] : [cmd, ...args];
  return spawn(argv[0], argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' } });
}

function finished(child, output) {
  child.stdout?.on('data', (d) => output.push(d.toString()));
  child.stderr?.on('data', (d) => output.push(d.toString()));
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
}

const removeDir = (dir) => rmSync(dir, { recursive: true, force: true });

/**
 * Starts a throwaway cluster; throws if it cannot (call postgresMissing() or postgresUnavailable()
 * first to skip instead). `durable: true` keeps fsync, synchronous_commit and full_page_writes on.
 */
export async function startPostgres({ durable = false } = {}) {
  const bin = postgresBinDir();
  const as = runAs();
  if (!bin || typeof as === 'string') throw new Error(postgresUnavailable());
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'berth-pg-')));
  const data = join(root, 'data');
  const sockets = join(root, 'sockets');
  mkdirSync(sockets);
  if (as) {
    chownSync(root, as.uid, as.gid);
    chownSync(sockets, as.uid, as.gid);
  }
  const initOut = [];
  const initCode = await finished(
    spawnAs(as, join(bin, 'initdb'), ['-D', data, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'], root),
    initOut,
  );
  if (initCode !== 0) {
    removeDir(root);
    throw new Error(`initdb failed (${initCode}): ${initOut.join('').slice(-2000)}`);
  }
  const settings = [...(durable ? [] : NO_DURABILITY), ...COMMON_SETTINGS];

  const launch = (port) => {
    const out = [];
    const child = spawnAs(as, join(bin, 'postgres'), ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', sockets, ...settings.flatMap((s) => ['-c', s])], root);
    return { child, exited: finished(child, out), out };
  };
  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const server = launch(port);
    const url = (db) => `postgres://${SUPERUSER}@127.0.0.1:${port}/${db}`;
    if (await waitReady(url('postgres'), server.exited)) return running({ server, launch, port, root, url, durable });
    lastError = server.out.join('');
    if (server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  }
  removeDir(root);
  throw new Error(`postgres did not start: ${lastError.slice(-2000)}`);
}

/**
 * The handle of a started server: its watchdog armed, `createDatabase`, an idempotent `stop`, and
 * `halt`/`resume` (the same data on the same port) for tests of a database that goes away and comes back.
 */
function running({ server, launch, port, root, url, durable }) {
  let current = server;
  // A process killed by a signal runs no exit handler: the watchdog stops the server
  // (immediate shutdown, by PID) and removes its folder once our process is gone.
  let watch = watchOver(current.child.pid, root, 'QUIT');
  let databases = 0;
  let stopping;
  // SIGINT: PostgreSQL's fast shutdown (rolls back open transactions, closes every connection, then exits).
  const shutdown = async () => {
    watch.disarm();
    if (current.child.exitCode === null && current.child.signalCode === null) process.kill(current.child.pid, 'SIGINT');
    await current.exited;
  };
  return {
    port,
    get pid() {
      return current.child.pid;
    },
    durable,
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
    /** Stops the server (fast shutdown) and keeps its data, until `resume`. */
    halt: shutdown,
    /** Starts the halted server again on its data and port. */
    async resume() {
      current = launch(port);
      watch = watchOver(current.child.pid, root, 'QUIT');
      if (!(await waitReady(url('postgres'), current.exited))) throw new Error(`postgres did not start again: ${current.out.join('').slice(-2000)}`);
    },
    stop() {
      stopping ??= (async () => {
        await shutdown();
        removeDir(root);
      })();
      return stopping;
    },
  };
}

/** Polls until the server accepts a connection (true), or it exits or 30 s pass (false). */
async function waitReady(url, exited) {
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
