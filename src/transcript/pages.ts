import { MAX_TRANSCRIPT_PAGE_BYTES } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import type { TranscriptRecord, TranscriptRepository } from './records.js';
import type { PageQuery } from './page-query.js';
import { flatEnvelope, recordEvents } from './replay-events.js';
import type { FrozenTranscript, TranscriptTokens } from './tokens.js';

/**
 * One page of a persisted transcript (docs/client-api.md §10.1). Records are numbered 1..n
 * per session; every page reads inside a frozen snapshot (the first page fixes
 * n and every cursor carries it), forward from a position or backward ending
 * before one. `limit` counts records; one record may yield several events
 * (a prompt with two blocks) or none (an unreadable one).
 */
export interface PageContext {
  readonly sessionId: string;
  readonly startTime: string;
  /** ISO time of the last change, when known. */
  readonly lastUpdated: string;
}

type Store = Pick<TranscriptRepository, 'lastSeq' | 'recordIdAt' | 'seqOf' | 'range'>;

interface Slice {
  readonly frozen: FrozenTranscript;
  readonly records: TranscriptRecord[];
  readonly first: number;
  readonly last: number;
  readonly direction: 'forward' | 'backward';
  readonly target?: string;
}

const badToken = (what: string) => new BerthError('invalid_transcript_cursor', `Invalid transcript ${what}`);
const badAnchor = (name: string, id: string) =>
  new BerthError('invalid_turn_anchor', `\`${name}\` ${JSON.stringify(id)} is not a record of this transcript snapshot`);

export class TranscriptPages {
  constructor(
    private readonly store: Store,
    private readonly tokens: TranscriptTokens,
  ) {}

  /** The transcript as it stands now: what a first page freezes. */
  async current(sessionId: string): Promise<FrozenTranscript> {
    const size = await this.store.lastSeq(sessionId);
    return { sessionId, size, fingerprint: size > 0 ? ((await this.store.recordIdAt(sessionId, size)) ?? '') : '' };
  }

  /** A signed snapshot token of the transcript as it stands now (the turn index hands it out). */
  snapshotToken(frozen: FrozenTranscript): string {
    return this.tokens.sign({ kind: 'snapshot', ...frozen });
  }

  /** Decodes a snapshot token of this session and checks storage still holds it (409 when it moved). */
  openSnapshot(sessionId: string, token: string): Promise<FrozenTranscript> {
    const t = this.tokens.verify(token);
    if (t?.kind !== 'snapshot' || t.sessionId !== sessionId) throw badToken('snapshot');
    return this.checkFrozen(t);
  }

  /** The page as the JSON text of a `TranscriptPage`, refused with 413 past the page byte budget. */
  async page(ctx: PageContext, query: PageQuery): Promise<string> {
    const slice = await this.slice(ctx.sessionId, query);
    const events = slice.records.flatMap(recordEvents).map(flatEnvelope);
    const unreadable = slice.records.filter((r) => r.unreadable).length;
    const hasMore = slice.direction === 'forward' ? slice.last < slice.frozen.size : slice.first > 1;
    const next = hasMore
      ? this.tokens.sign({
          kind: 'cursor',
          ...slice.frozen,
          direction: slice.direction,
          position: slice.direction === 'forward' ? slice.last + 1 : slice.first,
        })
      : undefined;
    const body = {
      v: 1,
      sessionId: ctx.sessionId,
      events,
      ...(next ? { nextCursor: next } : {}),
      hasMore,
      startTime: ctx.startTime,
      lastUpdated: ctx.lastUpdated,
      ...(unreadable > 0 ? { partial: true, replayError: `${unreadable} transcript record(s) could not be read and were skipped` } : {}),
      ...(slice.target !== undefined ? { targetRecordId: slice.target, hasOlder: slice.first > 1 } : {}),
    };
    const text = JSON.stringify(body);
    const pageBytes = Buffer.byteLength(text);
    if (pageBytes > MAX_TRANSCRIPT_PAGE_BYTES) {
      throw new BerthError('transcript_page_too_large', `The transcript page is ${pageBytes} bytes; ask for a smaller limit`, {
        pageBytes,
        maxBytes: MAX_TRANSCRIPT_PAGE_BYTES,
      });
    }
    return text;
  }

  private async slice(sessionId: string, { limit, mode }: PageQuery): Promise<Slice> {
    switch (mode.kind) {
      case 'first': {
        const frozen = await this.current(sessionId);
        return mode.direction === 'forward' ? this.forward(frozen, 1, limit) : this.backward(frozen, frozen.size + 1, limit);
      }
      case 'cursor': {
        const t = this.tokens.verify(mode.token);
        if (t?.kind !== 'cursor' || t.sessionId !== sessionId || t.position > t.size + 1) throw badToken('cursor');
        const frozen = await this.checkFrozen(t);
        return t.direction === 'forward' ? this.forward(frozen, t.position, limit) : this.backward(frozen, t.position, limit);
      }
      case 'before': {
        const frozen = mode.snapshot !== undefined ? await this.openSnapshot(sessionId, mode.snapshot) : await this.current(sessionId);
        const seq = await this.seqIn(frozen, mode.recordId, 'beforeRecordId');
        return { ...(await this.backward(frozen, seq, limit)), target: mode.recordId };
      }
      case 'at': {
        const frozen = await this.openSnapshot(sessionId, mode.snapshot);
        const seq = await this.seqIn(frozen, mode.recordId, 'atRecordId');
        // Navigation anchors are turns: the record that opened a prompt (the turn index lists them).
        if ((await this.store.range(sessionId, seq, seq + 1))[0]?.kind !== 'user_prompt') throw badAnchor('atRecordId', mode.recordId);
        return { ...(await this.forward(frozen, seq, limit)), target: mode.recordId };
      }
    }
  }

  private async checkFrozen(t: FrozenTranscript): Promise<FrozenTranscript> {
    if (t.size > 0 && (await this.store.recordIdAt(t.sessionId, t.size)) !== t.fingerprint) {
      throw new BerthError(
        'transcript_snapshot_unavailable',
        'The stored transcript changed under this cursor (records were removed or rewritten); start again from a first page',
        { sessionId: t.sessionId, snapshotSize: t.size },
      );
    }
    return { sessionId: t.sessionId, size: t.size, fingerprint: t.fingerprint };
  }

  private async seqIn(frozen: FrozenTranscript, recordId: string, name: string): Promise<number> {
    const at = await this.store.seqOf(recordId);
    if (!at || at.sessionId !== frozen.sessionId || at.seq > frozen.size) throw badAnchor(name, recordId);
    return at.seq;
  }

  private async forward(frozen: FrozenTranscript, start: number, limit: number): Promise<Slice> {
    const last = Math.min(frozen.size, start + limit - 1);
    const records = last >= start ? await this.store.range(frozen.sessionId, start, last + 1) : [];
    return { frozen, records, first: start, last, direction: 'forward' };
  }

  /** Records strictly before `end`, the newest `limit` of them, oldest first. */
  private async backward(frozen: FrozenTranscript, end: number, limit: number): Promise<Slice> {
    const last = Math.min(end - 1, frozen.size);
    const first = Math.max(1, last - limit + 1);
    const records = last >= first ? await this.store.range(frozen.sessionId, first, last + 1) : [];
    return { frozen, records, first, last, direction: 'backward' };
  }
}
