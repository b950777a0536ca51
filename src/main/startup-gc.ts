import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One full garbage collection, made when the start-up's background loading has finished
 * (daemon.ts). Loading the lazy modules leaves the heap about a fifth garbage (16 MB, 12 MB
 * live after the collection), and left to itself V8 makes its first full collection some
 * hundreds of milliseconds later — in the sessions bench, among the first turns of new
 * sessions (in 4 boots of 8 one of them took its 3.5-6 ms pause). Made here, while no request is likely to wait, it costs
 * 10-16 ms once, and the heap it leaves lasts well past the first turns.
 *
 * Scripts get no collection unless node was started with `--expose-gc`, which the daemon's
 * command does not carry; set now, the flag gives `gc` to the contexts made after it. Returns
 * the milliseconds the collection took.
 */
export function collectStartupGarbage(): number {
  const started = performance.now();
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) {
    exposed();
  } else {
    setFlagsFromString('--expose-gc');
    try {
      (runInNewContext('gc') as () => void)();
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  return performance.now() - started;
}
