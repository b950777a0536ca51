// Loaded with `--import` into a daemon under test: appends to the file named by
// BERTH_LOAD_LOG, in the order things happen, `load <url>` for every module the
// ESM loader loads (from the hooks thread) and `listening <port>` when a TCP
// server starts listening, `spawn <file>` when a child process starts and
// `gc forced` when a full collection asked for by the program ends (from the
// main thread). All append synchronously, so the file's order is the order of
// events (a collection's line comes a little after it, when its entry is delivered).
import childProcess, { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { register, syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const log = process.env.BERTH_LOAD_LOG;
if (log) {
  register('./hooks.mjs', import.meta.url, { data: { log } });
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function (...args) {
    this.once('listening', () => {
      const address = this.address();
      if (address && typeof address === 'object') appendFileSync(log, `listening ${address.port}\n`);
    });
    return listen.apply(this, args);
  };
  const spawn = ChildProcess.prototype.spawn;
  ChildProcess.prototype.spawn = function (options) {
    appendFileSync(log, `spawn ${options?.file}\n`);
    return spawn.call(this, options);
  };
  const spawnSync = childProcess.spawnSync;
  childProcess.spawnSync = function (file, ...rest) {
    appendFileSync(log, `spawn ${file}\n`);
    return spawnSync.call(this, file, ...rest);
  };
  syncBuiltinESMExports();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { kind, flags } = entry.detail;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR && flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) appendFileSync(log, 'gc forced\n');
    }
  }).observe({ entryTypes: ['gc'] });
}
