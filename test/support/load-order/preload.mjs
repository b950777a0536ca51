// Loaded with `--import` into a daemon under test: appends to the file named by
// BERTH_LOAD_LOG, in the order things happen, `load <url>` for every module the
// ESM loader loads (from the hooks thread) and `listening <port>` when a TCP
// server starts listening and `spawn <file>` when a child process starts (from
// the main thread). All append synchronously, so the file's order is the order
// of events.
import childProcess, { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { register, syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

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
}
