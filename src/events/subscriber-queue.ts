import { SLOW_CLIENT_REARM_RATIO, SLOW_CLIENT_WARN_RATIO } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { CONTROL_TYPES, controlFrame } from './envelope.js';
import type { EventBusStats } from './stats.js';
import type { EventEnvelope, EventFrame, Subscription } from './types.js';

export interface SubscriberQueueOptions {
  readonly id: string;
  readonly epoch: string;
  readonly maxQueued: number;
  readonly maxQueuedBytes: number;
  /** Replay, resync and snapshot frames: delivered first, outside the caps (docs/client-api.md §7.4, §7.5). */
  readonly initial: readonly EventFrame[];
  /** How many id-bearing frames of `initial` are replayed events (they do not count as backlog). */
  readonly replayedCount: number;
  readonly now: () => number;
  readonly stats?: EventBusStats;
  /** Called once, when this queue stops taking live events (evicted, closed, or ended by the bus). */
  readonly onDetach: (queue: SubscriberQueue) => void;
}

/** What a subscriber's backlog looks like now; for health and for tests. */
export interface QueueState {
  readonly queueSize: number;
  readonly queuedBytes: number;
  readonly maxQueued: number;
  readonly maxQueuedBytes: number;
  readonly evicted: string | undefined;
  readonly ended: boolean;
}

// Compacting the FIFO array once its consumed head is this long keeps shifts amortized O(1).
const COMPACT_AFTER = 1024;

/**
 * One subscriber's bounded queue (docs/client-api.md §7.5). Live events count against
 * `maxQueued` frames and `maxQueuedBytes` serialized bytes; reaching 75 % of
 * either pushes one `slow_client_warning` (re-armed when both are back to
 * 37.5 %), and an event that would overflow either ends this subscriber with
 * `client_evicted` (its backlog released) instead of growing memory. The
 * publisher never waits here: `offer()` is synchronous and O(1). A reader that
 * registered `onReadable` is called right inside `offer()`; while it can write,
 * it takes each frame at once and the backlog stays empty.
 */
export class SubscriberQueue implements Subscription {
  readonly id: string;
  readonly epoch: string;
  private readonly options: SubscriberQueueOptions;
  private items: EventFrame[];
  private head = 0;
  /** Replayed frames still ahead in the queue; they are delivered outside the caps. */
  private replayAhead: number;
  private liveCount = 0;
  private liveBytes = 0;
  private warnArmed = true;
  private evictedReason: string | undefined;
  private phase: 'open' | 'ending' | 'ended' = 'open';
  private attached = true;
  private waiter: ((frame: EventFrame | null) => void) | undefined;
  private readable: (() => void) | undefined;
  readonly detached: Promise<void>;
  private markDetached!: () => void;

  constructor(options: SubscriberQueueOptions) {
    this.detached = new Promise((resolve) => (this.markDetached = resolve));
    this.options = options;
    this.id = options.id;
    this.epoch = options.epoch;
    this.items = [...options.initial];
    this.replayAhead = options.replayedCount;
  }

  /** A live event from the bus: queued within the caps, or the end of this subscriber. */
  offer(frame: EventFrame): void {
    if (this.phase !== 'open') return;
    const { maxQueued, maxQueuedBytes } = this.options;
    // A single oversized event may enter an empty backlog, so one large event never evicts a healthy client.
    if (this.liveCount > 0) {
      if (this.liveCount + 1 > maxQueued) return this.evict('queue_overflow', frame);
      if (this.liveBytes + frame.bytes > maxQueuedBytes) return this.evict('queue_bytes_overflow', frame);
    }
    this.enqueueLive(frame);
    if (this.warnArmed) this.maybeWarn(frame);
    this.wake();
  }

  /** The bus is closing: deliver what is queued, then `final` (if any), then end. */
  end(final?: EventFrame): void {
    if (this.phase !== 'open') return;
    if (final) this.enqueueLive(final);
    this.phase = 'ending';
    this.detach();
    this.wake();
  }

  nextFrame(): Promise<EventFrame | null> {
    if (this.waiter || this.readable) throw new BerthError('internal_error', 'A subscription has one reader at a time');
    const frame = this.takeFrame();
    if (frame !== undefined) return Promise.resolve(frame);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  takeFrame(): EventFrame | null | undefined {
    const frame = this.take();
    if (frame !== undefined) return frame;
    if (this.phase === 'open') return undefined;
    this.phase = 'ended';
    return null;
  }

  onReadable(listener: () => void): void {
    if (this.waiter || this.readable) throw new BerthError('internal_error', 'A subscription has one reader at a time');
    this.readable = listener;
  }

  async next(): Promise<EventEnvelope | null> {
    return (await this.nextFrame())?.envelope ?? null;
  }

  /** The consumer went away: drop the backlog at once and leave the bus. Idempotent. */
  close(): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    this.items = [];
    this.head = 0;
    this.liveCount = 0;
    this.liveBytes = 0;
    this.detach();
    this.readable = undefined;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(null);
  }

  state(): QueueState {
    return {
      queueSize: this.liveCount,
      queuedBytes: this.liveBytes,
      maxQueued: this.options.maxQueued,
      maxQueuedBytes: this.options.maxQueuedBytes,
      evicted: this.evictedReason,
      ended: this.phase === 'ended',
    };
  }

  private enqueueLive(frame: EventFrame): void {
    this.items.push(frame);
    this.liveCount++;
    this.liveBytes += frame.bytes;
  }

  private maybeWarn(latest: EventFrame): void {
    const { maxQueued, maxQueuedBytes } = this.options;
    const frames = this.liveCount >= maxQueued * SLOW_CLIENT_WARN_RATIO;
    const bytes = this.liveBytes >= maxQueuedBytes * SLOW_CLIENT_WARN_RATIO;
    if (!frames && !bytes) return;
    this.warnArmed = false;
    this.options.stats?.warned();
    this.items.push(
      controlFrame(
        CONTROL_TYPES.slowClientWarning,
        {
          queueSize: this.liveCount,
          maxQueued,
          lastEventId: latest.envelope.id,
          queuedBytes: this.liveBytes,
          maxQueuedBytes,
          threshold: frames && bytes ? 'frames_and_bytes' : frames ? 'frames' : 'bytes',
        },
        this.options.now(),
      ),
    );
  }

  /**
   * Ends this subscriber on overflow. The undelivered backlog is dropped at
   * once (it is what overflowed; the client resumes from its cursor and the
   * ring replays it), so an evicted client that never reads again holds
   * nothing but the eviction frame.
   */
  private evict(reason: 'queue_overflow' | 'queue_bytes_overflow', rejected: EventFrame): void {
    const { maxQueued, maxQueuedBytes } = this.options;
    this.evictedReason = reason;
    this.options.stats?.evicted();
    const evicted = controlFrame(
      CONTROL_TYPES.clientEvicted,
      {
        reason,
        droppedAfter: rejected.envelope.id,
        queueSize: this.liveCount,
        maxQueued,
        queuedBytes: this.liveBytes,
        maxQueuedBytes,
        ...(reason === 'queue_bytes_overflow' && { eventBytes: rejected.bytes }),
      },
      this.options.now(),
    );
    this.items = [evicted];
    this.head = 0;
    this.replayAhead = 0;
    this.liveCount = 0;
    this.liveBytes = 0;
    this.phase = 'ending';
    this.detach();
    this.wake();
  }

  private take(): EventFrame | undefined {
    if (this.head >= this.items.length) return undefined;
    const frame = this.items[this.head]!;
    this.items[this.head] = undefined as unknown as EventFrame;
    this.head++;
    if (this.head >= COMPACT_AFTER && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    if (frame.envelope.id !== undefined) {
      if (this.replayAhead > 0) this.replayAhead--;
      else this.release(frame);
    }
    return frame;
  }

  private release(frame: EventFrame): void {
    this.liveCount--;
    this.liveBytes -= frame.bytes;
    const { maxQueued, maxQueuedBytes } = this.options;
    if (
      !this.warnArmed &&
      this.liveCount <= maxQueued * SLOW_CLIENT_REARM_RATIO &&
      this.liveBytes <= maxQueuedBytes * SLOW_CLIENT_REARM_RATIO
    ) {
      this.warnArmed = true;
    }
  }

  private wake(): void {
    if (this.readable) return this.readable();
    const waiter = this.waiter;
    if (!waiter) return;
    const frame = this.take();
    if (frame === undefined && this.phase === 'open') return;
    this.waiter = undefined;
    if (frame === undefined) this.phase = 'ended';
    waiter(frame ?? null);
  }

  private detach(): void {
    if (!this.attached) return;
    this.attached = false;
    this.options.onDetach(this);
    this.markDetached();
  }
}
