import type { EventFrame } from './types.js';

/**
 * The last `capacity` published frames of one bus, for replay (docs/client-api.md §7.4).
 * Every accepted event enters the ring, so the ids it holds are contiguous:
 * the frame after cursor N sits at a computable offset, no search needed.
 */
export class ReplayRing {
  private readonly slots: EventFrame[] = [];
  /** Index of the oldest frame once the ring has wrapped (0 before). */
  private start = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('ring capacity must be a positive integer');
  }

  get size(): number {
    return this.slots.length;
  }

  /** Id of the oldest frame still held, or undefined when the ring is empty. */
  get firstId(): number | undefined {
    return this.slots[this.start]?.envelope.id;
  }

  push(frame: EventFrame): void {
    if (this.slots.length < this.capacity) {
      this.slots.push(frame);
      return;
    }
    this.slots[this.start] = frame;
    this.start = (this.start + 1) % this.capacity;
  }

  /** The i-th oldest frame held (0 = oldest). */
  at(index: number): EventFrame {
    return this.slots[(this.start + index) % this.slots.length]!;
  }

  /** Offset of the first frame whose id is greater than `cursor` (== size when none is). */
  offsetAfter(cursor: number): number {
    const first = this.firstId;
    if (first === undefined) return 0;
    return Math.min(this.slots.length, Math.max(0, cursor - first + 1));
  }
}
