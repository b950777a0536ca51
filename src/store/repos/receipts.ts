import type { Db } from '../sqlite.js';

/**
 * One receipt row as stored (migration 2). The tool layer owns the type it
 * reads (`Receipt` in tools/receipt-journal.ts) and the outcome's shape; the
 * store keeps the outcome as JSON, so the caller names the type it reads back.
 */
export interface StoredReceipt<Outcome = unknown> {
  readonly namespace: string;
  readonly callId: string;
  readonly toolName: string;
  readonly argsDigest: string;
  readonly status: 'executing' | 'completed';
  readonly outcome: Outcome | null;
  readonly startedAt: number;
  readonly finishedAt: number | null;
}

export type StoredReceiptStart = Pick<StoredReceipt, 'namespace' | 'callId' | 'toolName' | 'argsDigest' | 'startedAt'>;

/** A row as the driver returns it: the same columns and types on SQLite and PostgreSQL (BIGINT read as a number). */
export interface Raw {
  namespace: string;
  call_id: string;
  tool_name: string;
  args_digest: string;
  status: 'executing' | 'completed';
  outcome: string | null;
  started_at: number;
  finished_at: number | null;
}

export const fromRaw = <Outcome>(r: Raw): StoredReceipt<Outcome> => ({
  namespace: r.namespace,
  callId: r.call_id,
  toolName: r.tool_name,
  argsDigest: r.args_digest,
  status: r.status,
  outcome: r.outcome === null ? null : (JSON.parse(r.outcome) as Outcome),
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

/** Receipts in SQLite. */
export class SqliteReceiptRepository<Outcome = unknown> {
  private readonly findStmt;
  private readonly beginStmt;
  private readonly completeStmt;
  private readonly pruneStmt;
  private readonly sinceStmt;

  constructor(db: Db) {
    this.findStmt = db.prepare('SELECT * FROM receipts WHERE namespace = ? AND call_id = ?');
    // ON CONFLICT DO NOTHING makes the claim atomic: of two racing callers exactly one writes.
    this.beginStmt = db.prepare(
      `INSERT INTO receipts (namespace, call_id, tool_name, args_digest, status, started_at)
       VALUES (?, ?, ?, ?, 'executing', ?) ON CONFLICT (namespace, call_id) DO NOTHING`,
    );
    this.completeStmt = db.prepare(
      `UPDATE receipts SET status = 'completed', outcome = ?, finished_at = ?
       WHERE namespace = ? AND call_id = ? AND status = 'executing'`,
    );
    this.pruneStmt = db.prepare(`DELETE FROM receipts WHERE status = 'completed' AND finished_at < ?`);
    this.sinceStmt = db.prepare('SELECT * FROM receipts WHERE namespace = ? AND started_at >= ? ORDER BY started_at, call_id');
  }

  async find(namespace: string, callId: string): Promise<StoredReceipt<Outcome> | undefined> {
    const row = this.findStmt.get(namespace, callId) as Raw | undefined;
    return row ? fromRaw<Outcome>(row) : undefined;
  }

  async begin(s: StoredReceiptStart): Promise<boolean> {
    return this.beginStmt.run(s.namespace, s.callId, s.toolName, s.argsDigest, s.startedAt).changes === 1;
  }

  async complete(namespace: string, callId: string, outcome: Outcome, finishedAt: number): Promise<void> {
    this.completeStmt.run(JSON.stringify(outcome), finishedAt, namespace, callId);
  }

  async pruneCompletedBefore(time: number): Promise<number> {
    return this.pruneStmt.run(time).changes;
  }

  async startedSince(namespace: string, time: number): Promise<StoredReceipt<Outcome>[]> {
    return (this.sinceStmt.all(namespace, time) as Raw[]).map((r) => fromRaw<Outcome>(r));
  }
}
