import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { DEFAULT_MAX_QUEUED, MAX_MAX_QUEUED, MAX_QUEUED_BYTES, MAX_SUBSCRIBERS_PER_SESSION, MIN_MAX_QUEUED } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { CONTROL_TYPES, TERMINAL_BUS_TYPES, controlFrame, publishedFrame } from './envelope.js';
import { planReplay } from './replay.js';
import { ReplayRing } from './ring.js';
import type { EventBusStats } from './stats.js';
import { SubscriberQueue, type QueueState } from './subscriber-queue.js';
import type { EventEnvelope, EventFrame, PublishInput, SubscribeOptions, Subscription } from './types.js';

/** A subscription as the bus hands it out: the shared contract plus a look at its backlog. */
export interface BusSubscription extends Subscription {
  state(): QueueState;
}

export interface EventBusOptions {
  /** Events kept for replay (Config.eventRingSize). */
  readonly ringSize: number;
  readonly clock: Clock;
  readonly stats?: EventBusStats;
  /**
   * Ids already used by events this bus did not publish (a bus started after a
   * load continues the transcript's sequence, docs/client-api.md §7.4 step 2). Default 0.
   */
  readonly lastEventId?: number;
  /** Source of the epoch and subscription ids; a random UUID v4 by default. */
  readonly newId?: () => string;
  /**
   * Sees every accepted event, in id order, right after it enters the ring (the cluster
   * bus publishes it to the other nodes, docs/cluster-bus.md). Absent on a daemon alone.
   */
  readonly tap?: EventTap;
}

/** Called synchronously for each accepted event; must not throw and must not wait. */
export type EventTap = (frame: EventFrame, epoch: string) => void;

/**
 * The event bus of one session (docs/client-api.md §7.4, docs/architecture.md "How a prompt flows"):
 * assigns ids 1, 2, 3… within a fresh epoch, keeps the last `ringSize` events
 * for replay, and fans each event out to up to 64 subscribers, each behind
 * its own bounded queue. Publishing is synchronous and never waits for a
 * subscriber; subscribing (replay plus registration) is synchronous too, so
 * no event can fall between a replay and the live tail.
 */
export class EventBus {
  readonly epoch: string;
  private readonly ring: ReplayRing;
  private readonly clock: Clock;
  private readonly stats: EventBusStats | undefined;
  private readonly newId: () => string;
  private readonly tap: EventTap | undefined;
  private readonly subscribers = new Set<SubscriberQueue>();
  private nextId: number;
  private closed = false;

  constructor(options: EventBusOptions) {
    const seeded = options.lastEventId ?? 0;
    if (!Number.isSafeInteger(seeded) || seeded < 0) throw new RangeError('lastEventId must be a safe integer >= 0');
    this.ring = new ReplayRing(options.ringSize);
    this.clock = options.clock;
    this.stats = options.stats;
    this.newId = options.newId ?? randomUUID;
    this.tap = options.tap;
    this.epoch = this.newId();
    this.nextId = seeded + 1;
    this.stats?.busOpened();
  }

  /** The id of the last accepted event (0 before any): the high-water mark reported as `lastEventId`. */
  get lastEventId(): number {
    return this.nextId - 1;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Accepts one event: validates it whole, gives it the next id, stamps it,
   * keeps it for replay and hands it to every subscriber. A refused event
   * (`invalid_event`) consumes no id. A terminal event (`session_closed`,
   * `session_died`) closes the bus right after it is delivered.
   */
  publish(input: PublishInput): EventEnvelope {
    if (this.closed) throw new BerthError('session_closed', 'The event bus of this session is closed');
    const frame = this.accept(input);
    if (TERMINAL_BUS_TYPES.has(frame.envelope.type)) {
      this.finish(frame);
    } else {
      for (const subscriber of this.subscribers) subscriber.offer(frame);
    }
    return frame.envelope;
  }

  /**
   * Opens a subscription. With `lastEventId` it first replays per docs/client-api.md §7.4
   * (resync notices, ring events after the cursor within the byte budget,
   * `replay_complete`); without one it is live-only. `snapshot` becomes an
   * id-less `session_snapshot` frame: first when live-only, right after
   * `replay_complete` otherwise (§7.6).
   */
  subscribe(options: SubscribeOptions = {}): BusSubscription {
    if (this.closed) throw new BerthError('session_closed', 'The event bus of this session is closed');
    const maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
    if (!Number.isInteger(maxQueued) || maxQueued < MIN_MAX_QUEUED || maxQueued > MAX_MAX_QUEUED) {
      throw new BerthError('invalid_max_queued', `\`maxQueued\` must be in [${MIN_MAX_QUEUED}, ${MAX_MAX_QUEUED}]`);
    }
    if (this.subscribers.size >= MAX_SUBSCRIBERS_PER_SESSION) {
      this.stats?.refused();
      throw new BerthError(
        'subscriber_limit_exceeded',
        `EventBus subscriber limit reached (${MAX_SUBSCRIBERS_PER_SESSION})`,
        { limit: MAX_SUBSCRIBERS_PER_SESSION },
      );
    }

    const now = this.clock.now();
    const { frames: initial, replayedCount } = this.replayFor(options);
    if (options.snapshot !== undefined) {
      initial.push(controlFrame(CONTROL_TYPES.sessionSnapshot, options.snapshot, now));
    }

    const queue = new SubscriberQueue({
      id: this.newId(),
      epoch: this.epoch,
      maxQueued,
      maxQueuedBytes: MAX_QUEUED_BYTES,
      initial,
      replayedCount,
      now: () => this.clock.now(),
      stats: this.stats,
      onDetach: (q) => {
        if (this.subscribers.delete(q)) this.stats?.unsubscribed();
      },
    });
    this.subscribers.add(queue);
    this.stats?.subscribed();
    return queue;
  }

  /**
   * The replay a subscriber presenting `cursor` would get now, without subscribing
   * (docs/client-api.md §7.4), with the id it ends at: another node streams it, then
   * the live events after `lastEventId` that reach it over the cluster bus.
   */
  replayFor(cursor: { lastEventId?: number; epoch?: string }, maxBytes?: number): { frames: EventFrame[]; replayedCount: number; lastEventId: number } {
    const lastEventId = this.lastEventId;
    if (cursor.lastEventId === undefined) return { frames: [], replayedCount: 0, lastEventId };
    const plan = planReplay(this.ring, this.nextId, {
      lastEventId: cursor.lastEventId,
      epochMismatch: cursor.epoch !== undefined && cursor.epoch !== this.epoch,
    }, this.clock.now(), maxBytes);
    return { ...plan, lastEventId };
  }

  /**
   * Ends every subscription after what is queued, with `finalEvent` (published
   * like any event, so it gets the next id and enters the ring) as the last
   * frame of each stream. Idempotent; later publishes and subscribes are refused.
   */
  close(finalEvent?: PublishInput): void {
    if (this.closed) return;
    this.finish(finalEvent ? this.accept(finalEvent) : undefined);
  }

  private accept(input: PublishInput): EventFrame {
    // Built (and validated, and serialized) before the id is taken, so a refusal leaves no gap.
    const frame = publishedFrame(input, this.nextId, this.clock.now());
    this.nextId++;
    this.ring.push(frame);
    this.stats?.published();
    this.tap?.(frame, this.epoch);
    return frame;
  }

  private finish(final: EventFrame | undefined): void {
    this.closed = true;
    for (const subscriber of this.subscribers) subscriber.end(final);
    this.subscribers.clear();
    this.stats?.busClosed();
  }
}
