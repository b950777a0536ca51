// What starting a measured daemon must do alike for Berth and the peer, so their start times compare:
// the clock starts just before the spawn and stops at the listening line; ready() waits for a deep
// health 200.
import { startDaemonProcess } from './daemon-process.mjs';
import { waitFor200 } from './http-client.mjs';

/** startDaemonProcess(options), plus `label`, `startedAt`, `listenMs` and `ready()`. */
export async function startTimedDaemon(label, options) {
  const started = process.hrtime.bigint();
  const proc = await startDaemonProcess(options);
  const listenMs = Number(process.hrtime.bigint() - started) / 1e6;
  return {
    ...proc,
    label,
    /** hrtime (bigint) just before spawn: what "daemon start → …" times are measured from. */
    startedAt: started,
    listenMs,
    ready: () => waitFor200(`${proc.url}/health?deep=1`),
  };
}
