// The common frame of every side-by-side benchmark: one scratch folder, one fixture, one scripted
// model, the peer and Berth started on the same workspace with the same model, and one teardown
// that stops everything and removes the scratch folder whatever happened in between.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBerth } from '../berth.mjs';
import { makeFixture } from '../fixture.mjs';
import { startFloor } from '../floor.mjs';
import { startPeer } from '../peer.mjs';
import { registerCleanup } from './cleanup.mjs';
import { startModel } from './model.mjs';

/**
 * Runs `body({peer, berth, floor, workspace, fixture, model})` with the daemons up and ready;
 * `floor` (bench/floor/server.mjs) only when `withFloor` asks for it.
 * The daemons start one after the other so neither start-up is slowed by the other's.
 * `keepScratch` leaves the folder (logs, homes) for inspection. `profileDir` makes each daemon's
 * main process write a V8 CPU profile there on exit (`<dir>/peer`, `<dir>/berth`).
 */
export async function withBothDaemons(body, { log = console.error, keepScratch = false, profileDir, withFloor = false } = {}) {
  const profileArgs = (name) => (profileDir ? ['--cpu-prof', '--cpu-prof-dir', join(profileDir, name)] : []);
  const scratch = mkdtempSync(join(tmpdir(), 'berth-bench-'));
  const workspace = join(scratch, 'ws');
  const stops = [];
  const removeScratch = () => rmSync(scratch, { recursive: true, force: true });
  const unregister = keepScratch ? () => {} : registerCleanup(removeScratch);
  try {
    log(`bench: writing the fixture into ${workspace}`);
    const fixture = makeFixture(workspace);
    const model = await startModel();
    stops.push(model.close);
    log(`bench: scripted model at ${model.url}`);
    const peer = await startPeer({ workspace, scratch, modelUrl: model.url, nodeArgs: profileArgs('peer') });
    stops.push(peer.stop);
    await peer.ready();
    log(`bench: ${peer.label} at ${peer.url} (pid ${peer.pid})`);
    const berth = await startBerth({ workspace, scratch, modelUrl: model.url, nodeArgs: profileArgs('berth') });
    stops.push(berth.stop);
    await berth.ready();
    log(`bench: ${berth.label} at ${berth.url} (pid ${berth.pid})`);
    let floor;
    if (withFloor) {
      floor = await startFloor({ workspace, modelUrl: model.url, nodeArgs: profileArgs('floor') });
      stops.push(floor.stop);
      await floor.ready();
      log(`bench: ${floor.label} at ${floor.url} (pid ${floor.pid})`);
    }
    return await body({ peer, berth, floor, workspace, fixture, model, scratch });
  } finally {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (error) {
        log(`bench: stopping failed: ${error.message}`);
      }
    }
    if (profileDir) log(`bench: CPU profiles in ${profileDir} (summarise with bench/lib/cpuprofile-top.mjs)`);
    if (keepScratch) log(`bench: kept ${scratch}`);
    else removeScratch();
    unregister();
  }
}
