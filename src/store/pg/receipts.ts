import type { Async } from '../async.js';
import type { SqliteReceiptRepository, StoredReceipt, StoredReceiptStart } from '../repos/receipts.js';
import type { PgDb } from './db.js';
import { type Raw, fromRaw } from '../repos/receipts.js';

/** A session's tool calls keep their receipts under `session:<its id>` (ToolService.forSession). */
const SESSION_NAMESPACE = 'session:';

/**
 * Receipts in PostgreSQL. A session's receipt is written by its run, fenced by its lease; any other
 * namespace's (a gateway owner's calls for a session of another daemon) is the node's own.
 */
export class PgReceiptRepository<Outcome = unknown> implements Async<SqliteReceiptRepository<Outcome>> {
  constructor(private readonly db: PgDb) {}

  async find(namespace: string, callId: string): Promise<StoredReceipt<Outcome> | undefined> {
    const [row] = await this.db.rows<Raw>('SELECT * FROM receipts WHERE namespace = $1 AND call_id = $2', [namespace, callId]);
    return row ? fromRaw<Outcome>(row) : undefined;
  }

  /** The claim: of two racing callers (even on two daemons) exactly one inserts and resolves true. */
  async begin(s: StoredReceiptStart): Promise<boolean> {
    // Promised: the effect runs only after this row is durable, so a crash never lets it run twice.
    const changed = await this.writer(s.namespace).promised.run(
      `INSERT INTO receipts (namespace, call_id, tool_name, args_digest, status, started_at)
       VALUES ($1, $2, $3, $4, 'executing', $5) ON CONFLICT (namespace, call_id) DO NOTHING`,
      [s.namespace, s.callId, s.toolName, s.argsDigest, s.startedAt],
    );
    return changed === 1;
  }

  async complete(namespace: string, callId: string, outcome: Outcome, finishedAt: number): Promise<void> {
    await this.writer(namespace).promised.run(
      `UPDATE receipts SET status = 'completed', outcome = $1, finished_at = $2
       WHERE namespace = $3 AND call_id = $4 AND status = 'executing'`,
      [JSON.stringify(outcome), finishedAt, namespace, callId],
    );
  }

  async startedSince(namespace: string, time: number): Promise<StoredReceipt<Outcome>[]> {
    const rows = await this.db.rows<Raw>('SELECT * FROM receipts WHERE namespace = $1 AND started_at >= $2 ORDER BY started_at, call_id', [namespace, time]);
    return rows.map((r) => fromRaw<Outcome>(r));
  }

  private writer(namespace: string): PgDb {
    return namespace.startsWith(SESSION_NAMESPACE) ? this.db.for(namespace.slice(SESSION_NAMESPACE.length)) : this.db.nodeWide;
  }

  pruneCompletedBefore(time: number): Promise<number> {
    return this.db.nodeWide.run(`DELETE FROM receipts WHERE status = 'completed' AND finished_at < $1`, [time]);
  }
}
