import type { EventEnvelope } from '../events/types.js';
import type { TranscriptRecord } from './records.js';
import { recordEvents, wrappedEnvelope, type ReplayEvent } from './replay-events.js';

/**
 * The bounded replay window a load answers with (docs/client-api.md §5.3, §8.8): the newest
 * records that fit `maxRecords` and `maxBytes` (whole records only, at least
 * one), and, when older ones were left out, an id-less `history_truncated`
 * marker first whose `recordId` is the `beforeRecordId` anchor to page them
 * through the transcript route.
 */
export interface ReplayWindow {
  /** The marker (if any) and the window's events, in the load snapshot shape. */
  readonly envelopes: EventEnvelope[];
  /** How many of `envelopes` carry ids (all but the marker). */
  readonly eventCount: number;
  readonly hasMore: boolean;
  readonly anchorRecordId?: string;
  /** Records that could not be read (they are skipped, and the load says `partial`). */
  readonly unreadable: number;
}

export interface WindowOptions {
  readonly sessionId: string;
  readonly maxRecords: number;
  readonly maxBytes: number;
  /** The id of the first event (a cold load numbers its snapshot 1..N); undefined leaves events id-less. */
  readonly firstId?: number;
  readonly scope: 'compacted_replay' | 'live_journal';
}

export function replayWindow(records: readonly TranscriptRecord[], options: WindowOptions): ReplayWindow {
  const kept: ReplayEvent[][] = [];
  let bytes = 0;
  let start = records.length;
  for (let i = records.length - 1; i >= 0; i--) {
    if (records.length - i > options.maxRecords) break;
    const events = recordEvents(records[i]!);
    const size = events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e.data)), 0);
    if (kept.length > 0 && bytes + size > options.maxBytes) break;
    kept.unshift(events);
    bytes += size;
    start = i;
  }
  const unreadable = records.filter((r) => r.unreadable).length;
  const events = kept.flat();
  let id = options.firstId;
  const envelopes = events.map((e) => wrappedEnvelope(options.sessionId, e, id === undefined ? undefined : id++));
  if (start === 0) return { envelopes, eventCount: events.length, hasMore: false, unreadable };

  const dropped = records.slice(0, start);
  const anchor = records[start]?.recordId;
  const marker: EventEnvelope = {
    v: 1,
    type: 'history_truncated',
    data: {
      reason: 'replay_window_exceeded',
      truncatedEvents: dropped.reduce((n, r) => n + recordEvents(r).length, 0),
      retainedEvents: events.length,
      maxBytes: options.maxBytes,
      maxEvents: options.maxRecords,
      truncatedTurns: dropped.filter((r) => r.kind === 'user_prompt').length,
      scope: options.scope,
      ...(anchor ? { recordId: anchor } : {}),
      fullTranscriptAvailable: true,
    },
  };
  return {
    envelopes: [marker, ...envelopes],
    eventCount: events.length,
    hasMore: true,
    ...(anchor ? { anchorRecordId: anchor } : {}),
    unreadable,
  };
}
