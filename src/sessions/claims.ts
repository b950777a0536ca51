import { isSessionId } from './ids.js';
import type { SessionOwnership } from './ownership.js';

/**
 * Makes a session live under its owner's rules (docs/cluster-leases.md): the
 * node claims it first (taking its lease, or refusing), and gives the lease
 * back when `work` left it not live here (an unknown id, a session closed on
 * purpose, a failed reopen). Without ownership (one daemon) `work` just runs.
 */
export async function whileClaimed<T>(
  ownership: SessionOwnership | undefined,
  sessionId: string,
  isLive: (id: string) => boolean,
  work: () => Promise<T>,
): Promise<T> {
  if (!ownership || !isSessionId(sessionId)) return work();
  const id = sessionId.toLowerCase();
  if (isLive(id)) return work();
  await ownership.claim(id);
  try {
    return await work();
  } finally {
    if (!isLive(id)) ownership.released(id);
  }
}
