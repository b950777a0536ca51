import type { Db } from '../db.js';

/**
 * One transcript record: something a session said or did, with a
 * stable id. Kinds: `user_prompt`, `agent_message`, `agent_thought`,
 * `tool_call`, `tool_result`, `plan`, `permission_request`,
 * `permission_outcome`, `model_switch`, `metadata`, `approval_mode`, `turn_end`
 * (`interrupted: true` when a restart found the turn unfinished), `module_message`.
 */
export interface TranscriptRecord {
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

export type NewTranscriptRecord = Omit<TranscriptRecord, 'seq' | 'unreadable'>;

export interface TranscriptRepository {
  /** Appends records in order; returns them with their sequence numbers. */
  append(records: readonly NewTranscriptRecord[]): TranscriptRecord[];
  count(sessionId: string): number;
  /** Records with seq in [fromSeq, toSeq), ascending. */
  range(sessionId: string, fromSeq: number, toSeq: number): TranscriptRecord[];
  all(sessionId: string): TranscriptRecord[];
  seqOf(recordId: string): { sessionId: string; seq: number } | undefined;
  /**
   * The highest seq stored for the session, read from the table (not the append cache), so a
   * transcript page sees exactly what storage holds now.
   */
  lastSeq(sessionId: string): number;
  /** The record id stored at one position, if any: what a frozen transcript snapshot checks. */
  recordIdAt(sessionId: string, seq: number): string | undefined;
  /** Records of one kind with seq <= toSeq, ascending (e.g. the prompts of a turn index). */
  ofKind(sessionId: string, kind: string, toSeq: number): TranscriptRecord[];
}

interface Raw {
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
const fromRaw = (r: Raw): TranscriptRecord => {
  const data = parseData(r.data);
  const base = { sessionId: r.session_id, seq: r.seq, recordId: r.record_id, kind: r.kind, promptId: r.prompt_id, at: r.at };
  return data ? { ...base, data } : { ...base, data: {}, unreadable: true };
};

export class SqliteTranscriptRepository implements TranscriptRepository {
  private readonly insertStmt;
  private readonly maxSeqStmt;
  private readonly rangeStmt;
  private readonly recordIdAtStmt;
  private readonly ofKindStmt;
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
  }

  private seqFor(sessionId: string): number {
    let next = this.nextSeq.get(sessionId);
    if (next === undefined) {
      next = (this.maxSeqStmt.get(sessionId) as { n: number }).n + 1;
      this.nextSeq.set(sessionId, next);
    }
    return next;
  }

  append(records: readonly NewTranscriptRecord[]): TranscriptRecord[] {
    if (records.length === 0) return [];
    const out: TranscriptRecord[] = [];
    // The seq cache advances only after the transaction commits, so a failed write leaves no gap.
    const pending = new Map<string, number>();
    this.db.transaction(() => {
      for (const r of records) {
        const seq = pending.get(r.sessionId) ?? this.seqFor(r.sessionId);
        this.insertStmt.run(r.sessionId, seq, r.recordId, r.kind, r.promptId, r.at, JSON.stringify(r.data));
        pending.set(r.sessionId, seq + 1);
        out.push({ ...r, seq });
      }
    })();
    for (const [sessionId, next] of pending) this.nextSeq.set(sessionId, next);
    return out;
  }

  count(sessionId: string): number {
    return this.seqFor(sessionId) - 1;
  }

  range(sessionId: string, fromSeq: number, toSeq: number): TranscriptRecord[] {
    return (this.rangeStmt.all(sessionId, fromSeq, toSeq) as Raw[]).map(fromRaw);
  }

  all(sessionId: string): TranscriptRecord[] {
    return this.range(sessionId, 1, Number.MAX_SAFE_INTEGER);
  }

  seqOf(recordId: string): { sessionId: string; seq: number } | undefined {
    const r = this.db.prepare('SELECT session_id, seq FROM transcript WHERE record_id = ?').get(recordId) as
      | { session_id: string; seq: number }
      | undefined;
    return r ? { sessionId: r.session_id, seq: r.seq } : undefined;
  }

  lastSeq(sessionId: string): number {
    return (this.maxSeqStmt.get(sessionId) as { n: number }).n;
  }

  recordIdAt(sessionId: string, seq: number): string | undefined {
    return (this.recordIdAtStmt.get(sessionId, seq) as { record_id: string } | undefined)?.record_id;
  }

  ofKind(sessionId: string, kind: string, toSeq: number): TranscriptRecord[] {
    return (this.ofKindStmt.all(sessionId, kind, toSeq) as Raw[]).map(fromRaw);
  }
}
