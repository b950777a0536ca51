import type { TranscriptRecord, TranscriptRepository } from './records.js';
import { eventCount } from './replay-events.js';
import { replayWindow, type ReplayWindow, type WindowOptions } from './window.js';

/** What a replay window must know of a record it leaves out: counted in its marker, never sent. */
export interface OutlineEntry {
  readonly seq: number;
  readonly recordId: string;
  readonly promptId: string | null;
  readonly events: number;
  readonly turn: boolean;
  readonly unreadable: boolean;
}

type Store = Pick<TranscriptRepository, 'range' | 'recordIdAt'>;

const entryOf = (r: TranscriptRecord): OutlineEntry => ({
  seq: r.seq,
  recordId: r.recordId,
  promptId: r.promptId,
  events: eventCount(r),
  turn: r.kind === 'user_prompt',
  unreadable: r.unreadable === true,
});

/**
 * One stored transcript reduced to the few facts per record a load's replay window needs about
 * the records it does not send. A live session keeps its outline and brings it up to date by
 * reading only the records appended since, so a load of a session of 10,000 records reads the
 * window it sends (and those new records) instead of parsing all 10,000 every time. Transcripts
 * only grow; should the stored record at the outline's end not be the one it saw, it starts over.
 */
export class TranscriptOutline {
  private constructor(
    private readonly store: Store,
    private readonly sessionId: string,
    private entries: OutlineEntry[],
  ) {}

  /** From records already read in full (a cold load reads them all anyway). */
  static of(store: Store, sessionId: string, records: readonly TranscriptRecord[]): TranscriptOutline {
    return new TranscriptOutline(store, sessionId, records.map(entryOf));
  }

  static empty(store: Store, sessionId: string): TranscriptOutline {
    return new TranscriptOutline(store, sessionId, []);
  }

  private refreshing: Promise<readonly OutlineEntry[]> | undefined;

  /** The outline of what storage holds now. One refresh at a time: two loads at once must not append the same records twice. */
  current(): Promise<readonly OutlineEntry[]> {
    const refresh = async (): Promise<readonly OutlineEntry[]> => {
      const last = this.entries.at(-1);
      if (last && (await this.store.recordIdAt(this.sessionId, last.seq)) !== last.recordId) this.entries = [];
      const from = (this.entries.at(-1)?.seq ?? 0) + 1;
      for (const r of await this.store.range(this.sessionId, from, Number.MAX_SAFE_INTEGER)) this.entries.push(entryOf(r));
      return this.entries;
    };
    const next = (this.refreshing ?? Promise.resolve()).then(refresh, refresh);
    this.refreshing = next;
    return next;
  }

  /**
   * The replay window of `entries` (a subset of this outline, in order): reads the newest
   * `maxRecords` of them in full and hands the window a summary of the rest.
   */
  async window(entries: readonly OutlineEntry[], options: WindowOptions): Promise<ReplayWindow> {
    const cut = Math.max(0, entries.length - options.maxRecords);
    const tail = entries.slice(cut);
    const wanted = new Set(tail.map((e) => e.seq));
    const records =
      tail.length === 0 ? [] : (await this.store.range(this.sessionId, tail[0]!.seq, tail.at(-1)!.seq + 1)).filter((r) => wanted.has(r.seq));
    let events = 0;
    let turns = 0;
    let unreadable = 0;
    for (let i = 0; i < cut; i++) {
      const e = entries[i]!;
      events += e.events;
      if (e.turn) turns += 1;
      if (e.unreadable) unreadable += 1;
    }
    return replayWindow(records, options, { records: cut, events, turns, unreadable });
  }
}
