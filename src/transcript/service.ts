import type { Clock } from '../clock.js';
import { DEFAULT_TRANSCRIPT_LIMIT, MAX_TRANSCRIPT_LIMIT } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { EXPORT_WRITERS, exportFilename, type ExportFormat } from '../export/index.js';
import { exportChunks } from '../export/stream.js';
import type { SessionHead, SessionHeads, TranscriptRecord, TranscriptRepository } from './records.js';
import type { PageQuery } from './page-query.js';
import { TranscriptPages, type PageContext } from './pages.js';
import type { TranscriptTokens } from './tokens.js';
import type { WorkspaceRegistry } from '../workspace/registry.js';

export interface TranscriptStores {
  readonly sessions: SessionHeads;
  readonly transcript: TranscriptRepository;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A page of a transcript's turn index: its prompts, and the snapshot later pages and `atRecordId` anchor to. */
export interface TurnIndex {
  readonly sessionId: string;
  /** The signed snapshot token. */
  readonly snapshot: string;
  readonly totalTurns: number;
  readonly start: number;
  /** The `user_prompt` records of this page, in order; the first is turn number `start`. */
  readonly turns: readonly TranscriptRecord[];
  readonly startTime: string;
  readonly lastUpdated: string;
}

/**
 * Reads persisted history (docs/client-api.md §10): transcript pages, the turn index whose
 * snapshot anchors `atRecordId`, and whole sessions for export. Storage only —
 * it never starts a session, attaches a client or touches a live bus, so it
 * works the same for live and closed sessions.
 */
export class TranscriptService {
  readonly pages: TranscriptPages;

  private readonly stores: TranscriptStores;

  constructor(
    private readonly deps: {
      readonly stores: TranscriptStores;
      readonly tokens: TranscriptTokens;
      readonly clock: Clock;
      readonly workspaces: WorkspaceRegistry;
      /** Resolves once a live session's submitted writes are stored (main wires the live sessions); reads await it first. */
      readonly written?: (sessionId: string) => Promise<unknown>;
    },
  ) {
    this.stores = deps.stores;
    this.pages = new TranscriptPages(deps.stores.transcript, deps.tokens);
  }

  /**
   * The stored session, or 404 `session_not_found` (also for an id that is not a session id at all:
   * only session ids are ever stored, so the lookup itself refuses it).
   */
  async session(id: string): Promise<SessionHead> {
    const row = await this.stores.sessions.get(id.toLowerCase());
    if (!row) throw new BerthError('session_not_found', `No session with id "${id}"`, { sessionId: id });
    await this.deps.written?.(row.id);
    return row;
  }

  async page(id: string, query: PageQuery): Promise<string> {
    const row = await this.session(id);
    return this.pages.page(await this.context(row), query);
  }

  /** The last `most` records of one kind (e.g. `module_message`), oldest first; [] for a session never stored. */
  async latestOfKind(id: string, kind: string, most: number): Promise<TranscriptRecord[]> {
    const row = await this.stores.sessions.get(id.toLowerCase());
    if (!row) return [];
    await this.deps.written?.(row.id);
    const { transcript } = this.stores;
    const records = await transcript.ofKind(row.id, kind, await transcript.lastSeq(row.id));
    return records.filter((r) => !r.unreadable).slice(-most);
  }

  /** Sparse list of a transcript's turns (the prompts), with the snapshot `atRecordId` pages need. */
  async turnIndex(id: string, q: { snapshot?: string; start?: string; limit?: string }): Promise<TurnIndex> {
    const row = await this.session(id);
    const start = q.start === undefined ? 0 : /^\d{1,9}$/.test(q.start) ? Number(q.start) : NaN;
    const limit = q.limit === undefined ? DEFAULT_TRANSCRIPT_LIMIT : /^\d{1,3}$/.test(q.limit) ? Number(q.limit) : NaN;
    if (!Number.isSafeInteger(start)) throw new BerthError('invalid_request', '`start` must be a non-negative integer', { field: 'start' });
    if (!(limit >= 1 && limit <= MAX_TRANSCRIPT_LIMIT)) {
      throw new BerthError('invalid_transcript_limit', `\`limit\` must be between 1 and ${MAX_TRANSCRIPT_LIMIT}`, {
        maxLimit: MAX_TRANSCRIPT_LIMIT,
      });
    }
    const frozen = q.snapshot !== undefined ? await this.pages.openSnapshot(row.id, q.snapshot) : await this.pages.current(row.id);
    const prompts = await this.stores.transcript.ofKind(row.id, 'user_prompt', frozen.size);
    const ctx = await this.context(row);
    return {
      sessionId: row.id,
      snapshot: this.pages.snapshotToken(frozen),
      totalTurns: prompts.length,
      start,
      turns: prompts.slice(start, start + limit),
      startTime: ctx.startTime,
      lastUpdated: ctx.lastUpdated,
    };
  }

  /**
   * The session's export as a stream of text chunks (docs/client-api.md §10.2): the session is looked
   * up now (an unknown one throws before anything is sent); the records are read a batch at a time
   * as the client takes the text, up to the last one stored when the export began.
   */
  async exportSession(id: string, format: ExportFormat): Promise<{ contentType: string; filename: string; chunks: AsyncIterable<string> }> {
    const row = await this.session(id);
    const ws = this.deps.workspaces.byId(row.workspaceId);
    const cwd = row.currentCwd ?? (ws?.kind === 'local' ? ws.root : (ws?.id ?? null));
    const now = this.deps.clock.now();
    const repo = this.stores.transcript;
    const chunks = exportChunks(
      {
        row,
        cwd,
        now,
        lastSeq: await repo.lastSeq(row.id),
        range: (from, to) => repo.range(row.id, from, to),
        overflowOf: (recordId) => repo.overflowOf(recordId),
      },
      format,
    );
    return { contentType: EXPORT_WRITERS[format].contentType, filename: exportFilename(row.id, new Date(now).toISOString(), format), chunks };
  }

  private async context(row: SessionHead): Promise<PageContext> {
    const last = await this.stores.transcript.lastSeq(row.id);
    const lastAt = last > 0 ? ((await this.stores.transcript.range(row.id, last, last + 1))[0]?.at ?? 0) : 0;
    return { sessionId: row.id, startTime: iso(row.createdAt), lastUpdated: iso(Math.max(row.updatedAt, lastAt)) };
  }
}
