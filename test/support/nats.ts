/**
 * A real NATS server for tests: Debian's `nats-server` (installed by `.ci/run` when missing) on a free
 * loopback port, with a config file naming its `max_payload`, stopped by PID, with the watchdog of
 * bench/lib/watchdog.mjs (as the PostgreSQL harness). Without the binary (or with
 * BERTH_TEST_NATS=off) `natsMissing()` says why and the tests skip. No JetStream: the cluster bus
 * replays from the owner's ring (docs/cluster-bus.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, watchOver } from '../../bench/lib/watchdog.mjs';

const BINARY = '/usr/sbin/nats-server';
/** What the cluster docs ask operators for: a forwarded request up to the daemon's 10 MiB body limit, in base64, fits. */
export const CLUSTER_MAX_PAYLOAD = 16 * 1024 * 1024;

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Why NATS tests cannot run here, or undefined when they can. */
export function natsMissing(): string | undefined {
  if (process.env.BERTH_TEST_NATS === 'off') return 'BERTH_TEST_NATS=off: the NATS tests are turned off';
  if (!existsSync(BINARY)) return `${BINARY} not found: install the Debian package nats-server`;
  return undefined;
}

/** True once the server greets a connection with its INFO line; false when it exits first. */
async function greets(port: number, child: ChildProcess): Promise<boolean> {
  for (let attempt = 0; attempt < 200 && child.exitCode === null; attempt++) {
    const ok = await new Promise<boolean>((resolve) => {
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
export async function startNats({ maxPayload = CLUSTER_MAX_PAYLOAD }: { maxPayload?: number } = {}): Promise<NatsServer> {
  const reason = natsMissing();
  if (reason) throw new Error(reason);
  const dir = mkdtempSync(join(tmpdir(), 'berth-nats-'));
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const conf = join(dir, 'nats.conf');
    writeFileSync(conf, `listen: "127.0.0.1:${port}"\nmax_payload: ${maxPayload}\n`);
    const child = spawn(BINARY, ['-c', conf], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (await greets(port, child)) return running(child, exited, port, dir);
    child.kill('SIGKILL');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('nats-server did not start');
}

function running(child: ChildProcess, exited: Promise<void>, port: number, dir: string): NatsServer {
  const pid = child.pid!;
  const watch = watchOver(pid, dir, 'TERM');
  let stopping: Promise<void> | undefined;
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
