import type { EventEnvelope } from '../events/types.js';
import type { TranscriptRecord } from './records.js';
import { eventCount, recordEvents, wrappedEnvelope, type ReplayEvent } from './replay-events.js';

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

/** What the window knows of the records before the ones it was handed (they are left out, and counted in the marker). */
export interface Preceding {
  readonly records: number;
  readonly events: number;
  /** Of them, the records that opened a turn (`user_prompt`). */
  readonly turns: number;
  readonly unreadable: number;
}

const NOTHING_BEFORE: Preceding = { records: 0, events: 0, turns: 0, unreadable: 0 };

/**
 * `records` are the newest records of the set (all of them, or only the tail when `preceding`
 * summarises the rest, so a load of a long transcript reads no more than it sends).
 */
export function replayWindow(records: readonly TranscriptRecord[], options: WindowOptions, preceding: Preceding = NOTHING_BEFORE): ReplayWindow {
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
  const unreadable = preceding.unreadable + records.filter((r) => r.unreadable).length;
  const events = kept.flat();
  let id = options.firstId;
  const envelopes = events.map((e) => wrappedEnvelope(options.sessionId, e, id === undefined ? undefined : id++));
  if (start === 0 && preceding.records === 0) return { envelopes, eventCount: events.length, hasMore: false, unreadable };

  const dropped = records.slice(0, start);
  const anchor = records[start]?.recordId;
  const marker: EventEnvelope = {
    v: 1,
    type: 'history_truncated',
    data: {
      reason: 'replay_window_exceeded',
      truncatedEvents: preceding.events + dropped.reduce((n, r) => n + eventCount(r), 0),
      retainedEvents: events.length,
      maxBytes: options.maxBytes,
      maxEvents: options.maxRecords,
      truncatedTurns: preceding.turns + dropped.filter((r) => r.kind === 'user_prompt').length,
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
