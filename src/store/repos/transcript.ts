import type { Db } from '../sqlite.js';

/**
 * A transcript row as stored (migration 3). The transcript module owns the
 * type it reads (`TranscriptRecord` in transcript/records.ts); this is its twin.
 */
export interface StoredRecord {
  readonly sessionId: string;
  readonly seq: number;
  readonly recordId: string;
  readonly kind: string;
  readonly promptId: string | null;
  readonly at: number;
  readonly data: Record<string, unknown>;
  /** Set when the stored payload could not be parsed; `data` is then empty (load/transcript report `partial`). */
  readonly unreadable?: true;
}

export type NewStoredRecord = Omit<StoredRecord, 'seq' | 'unreadable'> & { readonly overflow?: string };

/** A row as the driver returns it: the same columns and types on SQLite and PostgreSQL (BIGINT read as a number). */
export interface Raw {
  session_id: string;
  seq: number;
  record_id: string;
  kind: string;
  prompt_id: string | null;
  at: number;
  data: string;
}

function parseData(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** One damaged row must not hide the rest of a transcript: it comes back marked `unreadable`. */
export const fromRaw = (r: Raw): StoredRecord => {
  const data = parseData(r.data);
  const base = { sessionId: r.session_id, seq: r.seq, recordId: r.record_id, kind: r.kind, promptId: r.prompt_id, at: r.at };
  return data ? { ...base, data } : { ...base, data: {}, unreadable: true };
};

/** Transcripts in SQLite: appends keep a per-session seq cache that advances only on commit. */
export class SqliteTranscriptRepository {
  private readonly insertStmt;
  private readonly maxSeqStmt;
  private readonly rangeStmt;
  private readonly recordIdAtStmt;
  private readonly ofKindStmt;
  private readonly overflowInsertStmt;
  private readonly overflowStmt;
  private readonly nextSeq = new Map<string, number>();

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO transcript (session_id, seq, record_id, kind, prompt_id, at, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.maxSeqStmt = db.prepare('SELECT COALESCE(MAX(seq), 0) AS n FROM transcript WHERE session_id = ?');
    this.rangeStmt = db.prepare(
      'SELECT * FROM transcript WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq',
    );
    this.recordIdAtStmt = db.prepare('SELECT record_id FROM transcript WHERE session_id = ? AND seq = ?');
    this.ofKindStmt = db.prepare('SELECT * FROM transcript WHERE session_id = ? AND kind = ? AND seq <= ? ORDER BY seq');
    this.overflowInsertStmt = db.prepare('INSERT INTO transcript_overflow (record_id, session_id, data) VALUES (?, ?, ?)');
    this.overflowStmt = db.prepare('SELECT data FROM transcript_overflow WHERE record_id = ?');
  }

  private seqFor(sessionId: string): number {
    let next = this.nextSeq.get(sessionId);
    if (next === undefined) {
      next = (this.maxSeqStmt.get(sessionId) as { n: number }).n + 1;
      this.nextSeq.set(sessionId, next);
    }
    return next;
  }

  async append(records: readonly NewStoredRecord[]): Promise<StoredRecord[]> {
    if (records.length === 0) return [];
    const out: StoredRecord[] = [];
    // The seq cache advances only after the transaction commits, so a failed write leaves no gap.
    const pending = new Map<string, number>();
    this.db.transaction(() => {
      for (const r of records) {
        const seq = pending.get(r.sessionId) ?? this.seqFor(r.sessionId);
        this.insertStmt.run(r.sessionId, seq, r.recordId, r.kind, r.promptId, r.at, JSON.stringify(r.data));
        // The whole record beside its preview, in the same transaction: never one without the other.
        if (r.overflow !== undefined) this.overflowInsertStmt.run(r.recordId, r.sessionId, r.overflow);
        pending.set(r.sessionId, seq + 1);
        const { overflow: _kept, ...stored } = r;
        out.push({ ...stored, seq });
      }
    })();
    for (const [sessionId, next] of pending) this.nextSeq.set(sessionId, next);
    return out;
  }

  async count(sessionId: string): Promise<number> {
    return this.seqFor(sessionId) - 1;
  }

  async range(sessionId: string, fromSeq: number, toSeq: number): Promise<StoredRecord[]> {
    return (this.rangeStmt.all(sessionId, fromSeq, toSeq) as Raw[]).map(fromRaw);
  }

  async all(sessionId: string): Promise<StoredRecord[]> {
    return (this.rangeStmt.all(sessionId, 1, Number.MAX_SAFE_INTEGER) as Raw[]).map(fromRaw);
  }

  async seqOf(recordId: string): Promise<{ sessionId: string; seq: number } | undefined> {
    const r = this.db.prepare('SELECT session_id, seq FROM transcript WHERE record_id = ?').get(recordId) as
      | { session_id: string; seq: number }
      | undefined;
    return r ? { sessionId: r.session_id, seq: r.seq } : undefined;
  }

  async lastSeq(sessionId: string): Promise<number> {
    return (this.maxSeqStmt.get(sessionId) as { n: number }).n;
  }

  async recordIdAt(sessionId: string, seq: number): Promise<string | undefined> {
    return (this.recordIdAtStmt.get(sessionId, seq) as { record_id: string } | undefined)?.record_id;
  }

  async overflowOf(recordId: string): Promise<string | undefined> {
    return (this.overflowStmt.get(recordId) as { data: string } | undefined)?.data;
  }

  async ofKind(sessionId: string, kind: string, toSeq: number): Promise<StoredRecord[]> {
    return (this.ofKindStmt.all(sessionId, kind, toSeq) as Raw[]).map(fromRaw);
  }
}
