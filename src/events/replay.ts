import { MAX_REPLAY_BYTES } from './limits.js';
import { CONTROL_TYPES, controlFrame } from './envelope.js';
import type { ReplayRing } from './ring.js';
import type { EventFrame } from './types.js';

/** What a client presented: a valid `Last-Event-ID` and whether its epoch header mismatched. */
export interface ReplayCursor {
  readonly lastEventId: number;
  readonly epochMismatch: boolean;
}

export interface ReplayPlan {
  /** Frames to force-push ahead of live events: resync notices, replayed events, `replay_complete`. */
  readonly frames: EventFrame[];
  /** How many of them are replayed ring events. */
  readonly replayedCount: number;
}

/**
 * The replay algorithm of docs/client-api.md §7.4, steps 1-5, in that order. Pure: it reads
 * the ring and `nextId` and says what to send; the bus runs it synchronously
 * together with registering the subscriber, so no publish falls in between.
 */
export function planReplay(
  ring: ReplayRing,
  nextId: number,
  cursor: ReplayCursor,
  now: number,
  maxBytes: number = MAX_REPLAY_BYTES,
): ReplayPlan {
  const n = cursor.lastEventId;
  const first = ring.firstId;
  const frames: EventFrame[] = [];
  const resync = (data: Record<string, unknown>) =>
    frames.push(controlFrame(CONTROL_TYPES.stateResyncRequired, data, now));

  // Step 1: a restarted bus or a cursor from the future — the client's state is of another history.
  let after = n;
  if (cursor.epochMismatch || n >= nextId) {
    resync({
      reason: 'epoch_reset',
      ...(cursor.epochMismatch && { detail: 'epoch_mismatch' }),
      lastDeliveredId: n,
      earliestAvailableId: first ?? nextId,
    });
    after = 0;
  } else if (first === undefined && n < nextId - 1) {
    // Step 2: events exist but were seeded outside the ring (a bus started after a load).
    resync({ reason: 'seeded_replay_not_in_ring', lastDeliveredId: n, earliestAvailableId: nextId });
  } else if (first !== undefined && first > n + 1) {
    // Step 3: the ring has already dropped the events right after the cursor.
    resync({ reason: 'ring_evicted', lastDeliveredId: n, earliestAvailableId: first });
  }

  // Step 4: replay what the ring holds after the cursor, within the byte budget (always at least one).
  let replayedCount = 0;
  let budgetUsed = 0;
  let lastReplayed: number | undefined;
  for (let i = ring.offsetAfter(after); i < ring.size; i++) {
    const frame = ring.at(i);
    if (replayedCount > 0 && budgetUsed + frame.bytes > maxBytes) {
      resync({
        reason: 'replay_budget_exceeded',
        lastDeliveredId: lastReplayed ?? n,
        earliestAvailableId: frame.envelope.id,
      });
      break;
    }
    frames.push(frame);
    budgetUsed += frame.bytes;
    replayedCount++;
    lastReplayed = frame.envelope.id;
  }

  // Step 5: mark the end of replay; the two ids only when something was replayed (observed key order).
  frames.push(
    controlFrame(
      CONTROL_TYPES.replayComplete,
      lastReplayed === undefined
        ? { replayedCount }
        : { lastReplayedEventId: lastReplayed, lastEventId: lastReplayed, replayedCount },
      now,
    ),
  );
  return { frames, replayedCount };
}
