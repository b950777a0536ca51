// A throwaway NATS server, shared by the tests (test/support/nats.ts) and the benchmarks: Debian's
// `nats-server` (installed by `.ci/run` when missing) on a free loopback port, with a config file
// naming its `max_payload`, stopped by PID, with the watchdog of watchdog.mjs (as the PostgreSQL
// harness). No JetStream: the cluster bus replays from the owner's ring (docs/cluster-bus.md).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, watchOver } from './watchdog.mjs';

const BINARY = '/usr/sbin/nats-server';
/** What the cluster docs ask operators for: a forwarded request up to the daemon's 10 MiB body limit, in base64, fits. */
export const CLUSTER_MAX_PAYLOAD = 16 * 1024 * 1024;

/** Why a NATS server cannot be started here, or undefined when it can. */
export function natsUnavailable() {
  return existsSync(BINARY) ? undefined : `${BINARY} not found: install the Debian package nats-server`;
}

/** Why NATS tests cannot run here (also BERTH_TEST_NATS=off), or undefined when they can. */
export function natsMissing() {
  if (process.env.BERTH_TEST_NATS === 'off') return 'BERTH_TEST_NATS=off: the NATS tests are turned off';
  return natsUnavailable();
}

/** True once the server greets a connection with its INFO line; false when it exits first. */
async function greets(port, child) {
  for (let attempt = 0; attempt < 200 && child.exitCode === null; attempt++) {
    const ok = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('INFO'));
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** Starts a server whose messages may be up to `maxPayload` bytes (NATS's own default is 1 MiB). */
export async function startNats({ maxPayload = CLUSTER_MAX_PAYLOAD } = {}) {
  const reason = natsUnavailable();
  if (reason) throw new Error(reason);
  const dir = mkdtempSync(join(tmpdir(), 'berth-nats-'));
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const conf = join(dir, 'nats.conf');
    writeFileSync(conf, `listen: "127.0.0.1:${port}"\nmax_payload: ${maxPayload}\n`);
    const child = spawn(BINARY, ['-c', conf], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', () => resolve()));
    if (await greets(port, child)) return running(child, exited, port, dir);
    child.kill('SIGKILL');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('nats-server did not start');
}

function running(child, exited, port, dir) {
  const pid = child.pid;
  const watch = watchOver(pid, dir, 'TERM');
  let stopping;
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    pid,
    stop() {
      stopping ??= (async () => {
        watch.disarm();
        if (child.exitCode === null) {
          process.kill(pid, 'SIGTERM');
          await exited;
        }
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}
