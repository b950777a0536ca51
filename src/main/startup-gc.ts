import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One full garbage collection, made when the start-up's background loading has finished
 * (daemon.ts). Loading the lazy modules leaves the heap about a fifth garbage (16 MB, 12 MB
 * live after the collection), and left to itself V8 makes its first full collection some
 * hundreds of milliseconds later — in the sessions bench, among the first turns of new
 * sessions (in 4 boots of 8 one of them took its 3.5-6 ms pause). Made here, while no request
 * is likely to wait, it costs 10-17 ms once, and the heap it leaves lasts well past the first turns.
 *
 * Scripts get no collection unless node was started with `--expose-gc`, which the daemon's
 * command does not carry; set now, the flag gives `gc` to the contexts made after it. Returns
 * the milliseconds the collection took, or null where this Node gives no `gc` that way (the
 * collection is a nicety: the daemon goes on without it).
 */
export function collectStartupGarbage(): number | null {
  const started = performance.now();
  const gc = (globalThis as { gc?: unknown }).gc ?? contextGc();
  if (typeof gc !== 'function') return null;
  gc();
  return performance.now() - started;
}

function contextGc(): unknown {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('typeof gc === "function" ? gc : undefined');
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
