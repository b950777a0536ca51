import type { ToolOutcome } from '../../protocol/tools/types.js';
import type { Db } from '../db.js';

/** One durable record of an effectful tool call (design.md, Receipt). */
export interface Receipt {
  readonly namespace: string;
  readonly callId: string;
  readonly toolName: string;
  readonly argsDigest: string;
  /** `executing` is written before the effect; `completed` once the outcome is known. */
  readonly status: 'executing' | 'completed';
  /** The settled outcome; null while executing. */
  readonly outcome: ToolOutcome | null;
  readonly startedAt: number;
  readonly finishedAt: number | null;
}

export type ReceiptStart = Pick<Receipt, 'namespace' | 'callId' | 'toolName' | 'argsDigest' | 'startedAt'>;

/** Receipt storage behind an interface, so a shared server database can serve it later (design.md, Persistence). */
export interface ReceiptRepository {
  find(namespace: string, callId: string): Receipt | undefined;
  /** Writes an `executing` receipt; false (and nothing written) when one exists for this key. */
  begin(start: ReceiptStart): boolean;
  /** Records the outcome of an executing receipt. */
  complete(namespace: string, callId: string, outcome: ToolOutcome, finishedAt: number): void;
  /** Deletes completed receipts finished before `time`; executing ones are kept (they answer uncertain). */
  pruneCompletedBefore(time: number): number;
}

interface Raw {
  namespace: string;
  call_id: string;
  tool_name: string;
  args_digest: string;
  status: 'executing' | 'completed';
  outcome: string | null;
  started_at: number;
  finished_at: number | null;
}

const fromRaw = (r: Raw): Receipt => ({
  namespace: r.namespace,
  callId: r.call_id,
  toolName: r.tool_name,
  argsDigest: r.args_digest,
  status: r.status,
  outcome: r.outcome === null ? null : (JSON.parse(r.outcome) as ToolOutcome),
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

export class SqliteReceiptRepository implements ReceiptRepository {
  private readonly findStmt;
  private readonly beginStmt;
  private readonly completeStmt;
  private readonly pruneStmt;

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
  }

  find(namespace: string, callId: string): Receipt | undefined {
    const row = this.findStmt.get(namespace, callId) as Raw | undefined;
    return row ? fromRaw(row) : undefined;
  }

  begin(s: ReceiptStart): boolean {
    return this.beginStmt.run(s.namespace, s.callId, s.toolName, s.argsDigest, s.startedAt).changes === 1;
  }

  complete(namespace: string, callId: string, outcome: ToolOutcome, finishedAt: number): void {
    this.completeStmt.run(JSON.stringify(outcome), finishedAt, namespace, callId);
  }

  pruneCompletedBefore(time: number): number {
    return this.pruneStmt.run(time).changes;
  }
}
