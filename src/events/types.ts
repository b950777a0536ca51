/**
 * The event envelope (OpenAPI `EventEnvelope`, docs/client-api.md §7.3): per-session integer
 * ids from 1, `v: 1`, a type, a JSON-object payload, optional prompt
 * correlation and originator. Synthetic, subscriber-local frames
 * (`replay_complete`, `state_resync_required`, `session_snapshot`,
 * `slow_client_warning`, `client_evicted`, `stream_error`) have no id.
 */
export interface EventEnvelope {
  readonly id?: number;
  readonly v: 1;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly promptId?: string;
  readonly originatorClientId?: string;
  readonly _meta?: Record<string, unknown>;
}

/** What a publisher hands the bus; the bus assigns the id and stamps `_meta.serverTimestamp`. */
export interface PublishInput {
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly promptId?: string;
  readonly originatorClientId?: string;
  readonly _meta?: Record<string, unknown>;
}

export interface SubscribeOptions {
  /** `Last-Event-ID`: replay what came after it; undefined means live-only (docs/client-api.md §7.4). */
  readonly lastEventId?: number;
  /** `X-Qwen-Event-Epoch` the client presented with its cursor. */
  readonly epoch?: string;
  /** Live frame cap for this subscriber, 16-2048 (docs/client-api.md §7.1). */
  readonly maxQueued?: number;
  /** Inject a `session_snapshot` frame (docs/client-api.md §7.6); the bus asks its session for the payload. */
  readonly snapshot?: Record<string, unknown>;
  readonly clientId?: string;
}

/**
 * An envelope serialized once (docs/client-api.md §7.3 `data:` line), shared by the ring and
 * every subscriber queue; `bytes` is its UTF-8 length, the unit of the byte
 * caps (§7.4 replay budget, §7.5 queue bytes).
 */
export interface EventFrame {
  readonly envelope: EventEnvelope;
  readonly json: string;
  readonly bytes: number;
}

/**
 * One subscriber's view: frames to write, in order. `next()` resolves with the
 * next frame or null once the subscription has ended (evicted, closed, or the
 * bus closed). Terminal frames (`client_evicted`, `session_closed`, …) are
 * delivered before the end.
 */
export interface Subscription {
  readonly id: string;
  /** The epoch of the bus this subscription reads (`X-Qwen-Event-Epoch` response header). */
  readonly epoch: string;
  next(): Promise<EventEnvelope | null>;
  /** Like `next()`, with the frame's shared serialization, so writers never re-serialize. */
  nextFrame(): Promise<EventFrame | null>;
  /**
   * `nextFrame()` without waiting: the next frame, null once the subscription has ended, or
   * undefined when nothing is queued yet. For a writer that reads in `onReadable`.
   */
  takeFrame(): EventFrame | null | undefined;
  /**
   * Calls `listener` synchronously, inside the publisher's call, whenever a frame becomes
   * available or the subscription ends (evicted, bus closed), so one event reaches every
   * subscriber's socket in the publisher's own pass instead of a promise per subscriber.
   * The listener must not throw and must not wait; it reads with `takeFrame()`.
   */
  onReadable(listener: () => void): void;
  /**
   * Settles once the subscription takes no more events (evicted, bus closed, or
   * closed by its reader), so a writer stuck on a full socket learns it should
   * finish up rather than wait for a client that may never read again.
   */
  readonly detached: Promise<void>;
  /** Ends the subscription from the consumer side (client went away). */
  close(): void;
}
