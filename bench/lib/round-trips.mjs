// One operation repeated and timed, the way the in-process benchmarks (gateway, toolproto, modules)
// report it: latency one call at a time after a warm-up, and throughput with several callers at once.
import { quantile, summarize } from './stats.mjs';

/**
 * Runs `once` `warmup` times untimed, then `samples` times one at a time: the summary in ms, with p99,
 * and `cpuUs`, this process's CPU time per call in µs. Wall time on a shared machine measures the
 * neighbours too; CPU time per call barely moves with load, so it is what tells two builds apart there.
 * `beforeTimed` runs right before the timed calls (e.g. to read a helper process's CPU time).
 */
export async function measureLatency(once, { warmup, samples, beforeTimed = () => {} }) {
  for (let i = 0; i < warmup; i++) await once();
  beforeTimed();
  const latencies = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < samples; i++) {
    const t0 = process.hrtime.bigint();
    await once();
    latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const cpu = process.cpuUsage(cpu0);
  return { ...summarize(latencies), p99: quantile(latencies, 0.99), cpuUs: (cpu.user + cpu.system) / samples };
}

/** Calls per second while `callers` loops share `calls` calls of `once` until all are made. */
export async function measureThroughput(once, { callers, calls }) {
  const started = process.hrtime.bigint();
  let left = calls;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (left-- > 0) await once();
    }),
  );
  return calls / (Number(process.hrtime.bigint() - started) / 1e9);
}
