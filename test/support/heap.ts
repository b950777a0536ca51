import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after full collections, in MB: what the process keeps, not what it has not yet freed. */
export async function retainedHeapMb(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return Math.round((process.memoryUsage().heapUsed / 1e6) * 10) / 10;
}

export function rssMb(): number {
  return Math.round(process.memoryUsage().rss / 1e6);
}
