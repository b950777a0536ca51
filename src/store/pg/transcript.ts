import type { Async } from '../async.js';
import type { NewStoredRecord, SqliteTranscriptRepository, StoredRecord } from '../repos/transcript.js';
import type { DueWrite, PgDb, Queryer } from './db.js';
import { type Raw, fromRaw } from '../repos/transcript.js';

/** One damaged row must not hide the rest of a transcript: it comes back marked `unreadable`. */
const MAX_SEQ = 'SELECT COALESCE(MAX(seq), 0) AS n FROM transcript WHERE session_id = $1';
const INSERT = 'INSERT INTO transcript (session_id, seq, record_id, kind, prompt_id, at, data) VALUES ($1, $2, $3, $4, $5, $6, $7)';
const COLUMNS = 7;
/** One INSERT of `n` rows: a batch without overflow is one statement, atomic on its own, one round trip. */
const buildInsertRows = (n: number): string =>
  `INSERT INTO transcript (session_id, seq, record_id, kind, prompt_id, at, data) VALUES ${Array.from({ length: n }, (_, i) =>
    `(${Array.from({ length: COLUMNS }, (_, c) => `$${i * COLUMNS + c + 1}`).join(', ')})`,
  ).join(', ')}`;
/**
 * The texts of the batch sizes a turn makes (a few rows each), built once: the same string each
 * time spares building it and hashing it anew to find its prepared statement's name. A rare
 * larger batch is built each time rather than kept.
 */
const KEPT_TEXTS = 32;
const insertTexts = Array.from({ length: KEPT_TEXTS + 1 }, (_, n) => (n > 1 ? buildInsertRows(n) : INSERT));
const insertRows = (n: number): string => insertTexts[n] ?? buildInsertRows(n);
const INSERT_OVERFLOW = 'INSERT INTO transcript_overflow (record_id, session_id, data) VALUES ($1, $2, $3)';

/**
 * Transcripts in PostgreSQL, as in SQLite: a per-session seq cache that advances only
 * on commit. Every method, `count` included, is a unit of the connection's queue, so
 * it sees the appends submitted before it.
 */
export class PgTranscriptRepository implements Async<SqliteTranscriptRepository> {
  constructor(
    private readonly db: PgDb,
    /** Shared by every repository on one connection (`PgDb.for` views of one session's writes): one cache per session. */
    private readonly nextSeq = new Map<string, number>(),
  ) {}

  private async seqFor(q: Queryer, sessionId: string): Promise<number> {
    let next = this.nextSeq.get(sessionId);
    if (next === undefined) {
      next = (await q.rows<{ n: number }>(MAX_SEQ, [sessionId]))[0]!.n + 1;
      this.nextSeq.set(sessionId, next);
    }
    return next;
  }

  append(records: readonly NewStoredRecord[]): Promise<StoredRecord[]> {
    if (records.length === 0) return Promise.resolve([]);
    const pending = new Map<string, number>();
    const write = async (q: Queryer): Promise<StoredRecord[]> => {
      const stored: StoredRecord[] = [];
      for (const r of records) {
        const seq = pending.get(r.sessionId) ?? (await this.seqFor(q, r.sessionId));
        await q.run(INSERT, [r.sessionId, seq, r.recordId, r.kind, r.promptId, r.at, JSON.stringify(r.data)]);
        // The whole record beside its preview, in the same transaction: never one without the other.
        if (r.overflow !== undefined) await q.run(INSERT_OVERFLOW, [r.recordId, r.sessionId, r.overflow]);
        pending.set(r.sessionId, seq + 1);
        const { overflow: _kept, ...rest } = r;
        stored.push({ ...rest, seq });
      }
      return stored;
    };
    // After COMMIT, before the next unit runs: a failed write leaves no gap, and the next append sees the new seq.
    const committed = () => {
      for (const [sessionId, next] of pending) this.nextSeq.set(sessionId, next);
    };
    // One INSERT commits alone, atomically: a batch without overflow saves BEGIN's and COMMIT's round trips and one per record.
    if (records.every((r) => r.overflow === undefined)) {
      // Numbered from the cache when its turn comes (units before it advanced it), the cache advanced
      // only by `done`: made again (its group commit failed, so it runs alone), it numbers the same.
      const batch = (): DueWrite<StoredRecord[]> => {
        const next = new Map<string, number>();
        const stored = records.map(({ overflow: _none, ...rest }) => {
          const seq = next.get(rest.sessionId) ?? this.nextSeq.get(rest.sessionId)!;
          next.set(rest.sessionId, seq + 1);
          return { ...rest, seq };
        });
        const params = stored.flatMap((r) => [r.sessionId, r.seq, r.recordId, r.kind, r.promptId, r.at, JSON.stringify(r.data)]);
        const done = () => {
          for (const [sessionId, seq] of next) this.nextSeq.set(sessionId, seq);
          return stored;
        };
        return { sql: stored.length === 1 ? INSERT : insertRows(stored.length), params, done };
      };
      const sessions = [...new Set(records.map((r) => r.sessionId))];
      // Every session cached now stays cached: the write can join the writes queued with it.
      if (sessions.every((id) => this.nextSeq.has(id))) return this.db.writeNumbered(sessions, batch);
      // A session not cached yet reads its MAX(seq) first, unless a unit before it cached it meanwhile.
      return this.db.writeWhenDue(
        () => (records.every((r) => this.nextSeq.has(r.sessionId)) ? batch() : undefined),
        async (q) => {
          for (const r of records) await this.seqFor(q, r.sessionId);
          const due = batch();
          return due.done(await q.run(due.sql, due.params));
        },
      );
    }
    return this.db.transaction(write, committed);
  }

  count(sessionId: string): Promise<number> {
    return this.db.unit(async (q) => (await this.seqFor(q, sessionId)) - 1);
  }

  async range(sessionId: string, fromSeq: number, toSeq: number): Promise<StoredRecord[]> {
    const rows = await this.db.rows<Raw>(
      'SELECT * FROM transcript WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq',
      [sessionId, fromSeq, toSeq],
    );
    return rows.map(fromRaw);
  }

  all(sessionId: string): Promise<StoredRecord[]> {
    return this.range(sessionId, 1, Number.MAX_SAFE_INTEGER);
  }

  async seqOf(recordId: string): Promise<{ sessionId: string; seq: number } | undefined> {
    const [r] = await this.db.rows<{ session_id: string; seq: number }>('SELECT session_id, seq FROM transcript WHERE record_id = $1', [recordId]);
    return r ? { sessionId: r.session_id, seq: r.seq } : undefined;
  }

  async lastSeq(sessionId: string): Promise<number> {
    return (await this.db.rows<{ n: number }>(MAX_SEQ, [sessionId]))[0]!.n;
  }

  async recordIdAt(sessionId: string, seq: number): Promise<string | undefined> {
    const [r] = await this.db.rows<{ record_id: string }>('SELECT record_id FROM transcript WHERE session_id = $1 AND seq = $2', [sessionId, seq]);
    return r?.record_id;
  }

  async overflowOf(recordId: string): Promise<string | undefined> {
    const [r] = await this.db.rows<{ data: string }>('SELECT data FROM transcript_overflow WHERE record_id = $1', [recordId]);
    return r?.data;
  }

  async ofKind(sessionId: string, kind: string, toSeq: number): Promise<StoredRecord[]> {
    const rows = await this.db.rows<Raw>('SELECT * FROM transcript WHERE session_id = $1 AND kind = $2 AND seq <= $3 ORDER BY seq', [sessionId, kind, toSeq]);
    return rows.map(fromRaw);
  }
}
