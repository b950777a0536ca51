// Berth started inside the benchmark's own process from the compiled build (dist/), for the
// benchmarks that measure a face no peer has (gateway, toolproto, modules): a call then goes
// through Berth's real layers without an HTTP client of the benchmark's own in between.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { berthDir } from '../berth.mjs';
import { registerCleanup } from './cleanup.mjs';

/** Imports a module of Berth's build by its path under dist/ (e.g. `tools/permission.js`). */
export const fromDist = (rel) => import(pathToFileURL(join(berthDir(), 'dist', rel)).href);

/**
 * Makes a scratch folder `berth-bench-<label>-…` (removed by `close()`, or by the Ctrl-C cleanup),
 * lets `prepare(scratch)` lay out what the benchmark needs and return the config options of its own
 * (at least `home` and `workspaces`; both folders are created), and starts Berth on loopback, port 0,
 * silent, without model services. Returns `{daemon, scratch, close()}`.
 */
export async function startInProcessBerth(label, prepare) {
  const scratch = mkdtempSync(join(tmpdir(), `berth-bench-${label}-`));
  const removeScratch = () => rmSync(scratch, { recursive: true, force: true });
  const unregister = registerCleanup(removeScratch);
  let daemon;
  try {
    const [{ resolveConfig }, { startDaemon }, { silentLogger }] = await Promise.all([
      fromDist('config/config.js'),
      fromDist('main/daemon.js'),
      fromDist('log.js'),
    ]);
    const options = await prepare(scratch);
    for (const dir of [options.home, ...options.workspaces]) mkdirSync(dir, { recursive: true });
    const config = resolveConfig({ port: 0, hostname: '127.0.0.1', logLevel: 'silent', modelServices: [], ...options }, {});
    daemon = await startDaemon({ config, log: silentLogger() });
  } catch (error) {
    removeScratch();
    unregister();
    throw error;
  }
  return {
    daemon,
    scratch,
    async close() {
      await daemon.close();
      removeScratch();
      unregister();
    },
  };
}
