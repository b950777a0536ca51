// Loaded with `--import` into a daemon under test: appends to the file named by
// BERTH_LOAD_LOG, in the order things happen, `load <url>` for every module the
// ESM loader loads (from the hooks thread) and `listening <port>` when a TCP
// server starts listening (from the main thread). Both append synchronously, so
// the file's order is the order of events.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
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
}
