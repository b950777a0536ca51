import type { Clock } from '../../src/clock.js';
import type { EventEnvelope, Subscription } from '../../src/events/types.js';

/** A clock that stands still until a test moves it. */
export class ManualClock implements Clock {
  constructor(public t = 1_700_000_000_000) {}
  now(): number {
    return this.t;
  }
}

const NOTHING_YET = Symbol('nothing yet');

/**
 * Reads a subscription in tests. `available()` returns every frame the
 * subscription can hand over right now: a queued frame resolves within the
 * microtask queue, so a `setImmediate` turn is a sure "nothing more queued"
 * signal, not a timing guess. The pending read is kept for the next call.
 */
export class SubscriptionReader {
  private pending: Promise<EventEnvelope | null> | undefined;
  ended = false;

  constructor(readonly subscription: Subscription) {}

  async available(): Promise<EventEnvelope[]> {
    const out: EventEnvelope[] = [];
    while (!this.ended) {
      const read = this.pending ?? this.subscription.next();
      const result = await Promise.race([read, new Promise<typeof NOTHING_YET>((r) => setImmediate(() => r(NOTHING_YET)))]);
      if (result === NOTHING_YET) {
        this.pending = read;
        break;
      }
      this.pending = undefined;
      if (result === null) this.ended = true;
      else out.push(result);
    }
    return out;
  }
}

/** Types and ids of frames, compact for deepEqual. */
export const brief = (frames: readonly EventEnvelope[]) => frames.map((f) => (f.id === undefined ? f.type : f.id));

/** Reads frames until `count` have come or the stream ended. */
export async function readFrames(sub: Subscription, count: number): Promise<EventEnvelope[]> {
  const out: EventEnvelope[] = [];
  while (out.length < count) {
    const next = await sub.next();
    if (next === null) break;
    out.push(next);
  }
  return out;
}
