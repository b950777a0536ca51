// What the throwaway servers of the tests and benchmarks (postgres.mjs, test/support/nats.ts) share:
// a free loopback port, and a watchdog that stops a server by PID and removes its folder if our
// process dies without running its exit handlers (killed by a signal).
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A TCP port of 127.0.0.1 free right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Watches over server `pid` with its folder `dir`: if our process goes away, the server gets
 * `signal` (its fastest clean stop) and the folder is removed; at a normal exit our exit handler
 * does the same. `disarm()` when stopping the server ourselves.
 */
export function watchOver(pid, dir, signal) {
  const watchdog = spawn('sh', ['-c', `while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -${signal} "$2" 2>/dev/null; sleep 1; rm -rf "$3"`, 'watchdog', String(process.pid), String(pid), dir], {
    detached: true,
    stdio: 'ignore',
  });
  watchdog.unref();
  const stopAtExit = () => {
    for (const p of [watchdog.pid, pid]) {
      try {
        if (p !== undefined) process.kill(p, p === pid ? `SIG${signal}` : 'SIGTERM');
      } catch {
        // already gone
      }
    }
  };
  process.once('exit', stopAtExit);
  return {
    disarm() {
      process.removeListener('exit', stopAtExit);
      if (watchdog.pid !== undefined) process.kill(watchdog.pid, 'SIGTERM');
    },
  };
}
