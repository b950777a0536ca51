import type { Logger } from '../log.js';

export interface OwnerWatchOptions {
  /** The sessions this node streams from other nodes, with the node each stream follows. */
  readonly followed: () => ReadonlyMap<string, string>;
  /** Of these sessions, the node holding each one's valid lease (one look for all of them). */
  readonly holders: (sessionIds: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  /** Ends the streams of a session whose owner no longer holds it. */
  readonly ownerGone: (sessionId: string, nodeId: string) => void;
  /** How often to look: a third of the lease time, as renewals run. */
  readonly intervalMs: number;
  readonly log: Logger;
}

/**
 * A killed owner says no `down` (docs/cluster-bus.md, Following a session from another node):
 * every third of the lease time, while this node streams sessions from other nodes, one
 * lease look finds those whose owner's lease ran out or went to another node, and their
 * streams end as after a `down`. Nothing runs while nothing is followed.
 */
export function watchOwners(options: OwnerWatchOptions): () => void {
  let looking = false;
  const tick = async () => {
    if (looking) return;
    looking = true;
    try {
      await endStreamsOfGoneOwners(options);
    } catch (err) {
      options.log.warn({ err }, 'looking up the owners of followed sessions failed');
    } finally {
      looking = false;
    }
  };
  const timer = setInterval(() => void tick(), Math.max(1, options.intervalMs));
  timer.unref();
  return () => clearInterval(timer);
}

/** One look: ends the streams of every followed session whose owner no longer holds a valid lease on it. */
export async function endStreamsOfGoneOwners(options: Pick<OwnerWatchOptions, 'followed' | 'holders' | 'ownerGone'>): Promise<void> {
  const followed = options.followed();
  if (followed.size === 0) return;
  const holders = await options.holders([...followed.keys()]);
  for (const [sessionId, nodeId] of followed) if (holders.get(sessionId) !== nodeId) options.ownerGone(sessionId, nodeId);
}
