import type { EventEnvelope, EventFrame, PublishInput, SubscribeOptions, Subscription } from '../events/types.js';

/**
 * What a session needs from the concepts around it, named as small ports so
 * the session can be read (and tested) without the rest of the daemon.
 */

/** The session's event bus (src/events). */
export interface SessionBus {
  readonly epoch: string;
  readonly lastEventId: number;
  publish(input: PublishInput): EventEnvelope;
  readonly isClosed: boolean;
  subscribe(options: SubscribeOptions): Subscription;
  /** The replay a subscriber with this cursor would get, for a follower on another node (docs/cluster-bus.md). */
  replayFor(cursor: { lastEventId?: number; epoch?: string }, maxBytes?: number): { frames: EventFrame[]; replayedCount: number; lastEventId: number };
  readonly subscriberCount: number;
  close(): void;
}

/**
 * The tool layer as a session sees it: definitions under a guard and one call
 * at a time through the executor; the permission types are the executor's own.
 */
export type { PermissionDecision, PermissionRequest as PermissionAsk } from '../tools/permission.js';
export type { SessionToolAccess as SessionTools } from '../tools/service.js';

/** Where a session's transcript goes: every published event, plus each prompt as admitted. */
export interface TranscriptSink {
  observe(envelope: EventEnvelope): void;
  /** Writes out what is buffered; resolves once storage holds every record observed so far. */
  flush(): Promise<void>;
  /** True once a write failed (docs/client-api.md §7.6 `session_snapshot.recordingDegraded`). */
  readonly recordingDegraded: boolean;
}
