import type { ReadinessCheck } from '../health.js';
import type { Queryer } from '../store/pg/db.js';

/** A store slower than this to answer `SELECT 1` is as good as unreachable to a load balancer's probe. */
export const STORE_PROBE_TIMEOUT_MS = 2_000;

/**
 * Whether the store answers a trivial query in time. A store whose write connection is being
 * re-established (`connected` false) is not ready, though its reads may already answer.
 */
export async function probeStore(db: Pick<Queryer, 'rows'> & { readonly connected?: boolean }, timeoutMs = STORE_PROBE_TIMEOUT_MS): Promise<ReadinessCheck> {
  if (db.connected === false) return { name: 'store', ready: false, detail: { error: 'reconnecting to the store' } };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  const answered = db.rows('SELECT 1 AS ok').then(
    () => true,
    () => false,
  );
  try {
    const ready = await Promise.race([answered, late]);
    return { name: 'store', ready, ...(ready ? {} : { detail: { error: 'the store did not answer' } }) };
  } finally {
    clearTimeout(timer);
  }
}
