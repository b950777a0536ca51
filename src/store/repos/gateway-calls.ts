import type { Db } from '../db.js';

/** Where an outgoing gateway call stands (migration 5). */
export type GatewayCallState = 'sent' | 'answered' | 'abandoned';

/** One call B sent (or is about to send) to a workspace owner over a channel. */
export interface GatewayCallRecord {
  readonly id: string;
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly tool: string;
  /** The `args` JSON text exactly as framed. */
  readonly args: string;
  /** The channel token the call went out under; it is re-sent only to channels of that token. */
  readonly tokenId: string;
  readonly state: GatewayCallState;
  /** The `result` JSON text A answered with; null until answered. */
  readonly result: string | null;
  readonly sends: number;
  readonly sentAt: number;
  readonly settledAt: number | null;
}

export type GatewayCallStart = Pick<GatewayCallRecord, 'id' | 'workspaceId' | 'sessionId' | 'tool' | 'args' | 'tokenId' | 'sentAt'>;

/** The outgoing-call journal behind an interface, like every store (docs/architecture.md, Persistence). */
export interface GatewayCallRepository {
  /** Writes a `sent` row; throws when the id exists (ids are fresh per call). */
  insert(start: GatewayCallStart): void;
  /** Counts one more frame sent for a call still `sent`. */
  resent(id: string): void;
  /**
   * Records A's result. True when the call was `sent` and is now `answered`;
   * false for a duplicate (already answered) or for an abandoned call, whose
   * result is kept for audit but reaches nobody.
   */
  answer(id: string, result: string, at: number): boolean;
  /** Marks a call nobody waits for any more; false when it had already settled. */
  abandon(id: string, at: number): boolean;
  find(id: string): GatewayCallRecord | undefined;
  /** Abandons every call still `sent` (B restarted: the turns that made them are gone). Returns how many. */
  abandonAllSent(at: number): number;
  /** Deletes settled rows older than `time`. */
  pruneSettledBefore(time: number): number;
}

interface Raw {
  id: string;
  workspace_id: string;
  session_id: string;
  tool: string;
  args: string;
  token_id: string;
  state: GatewayCallState;
  result: string | null;
  sends: number;
  sent_at: number;
  settled_at: number | null;
}

const fromRaw = (r: Raw): GatewayCallRecord => ({
  id: r.id,
  workspaceId: r.workspace_id,
  sessionId: r.session_id,
  tool: r.tool,
  args: r.args,
  tokenId: r.token_id,
  state: r.state,
  result: r.result,
  sends: r.sends,
  sentAt: r.sent_at,
  settledAt: r.settled_at,
});

export class SqliteGatewayCallRepository implements GatewayCallRepository {
  private readonly insertStmt;
  private readonly resentStmt;
  private readonly answerStmt;
  private readonly lateAnswerStmt;
  private readonly abandonStmt;
  private readonly findStmt;
  private readonly abandonAllStmt;
  private readonly pruneStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO gateway_calls (id, workspace_id, session_id, tool, args, token_id, state, sent_at)
       VALUES (?, ?, ?, ?, ?, ?, 'sent', ?)`,
    );
    this.resentStmt = db.prepare(`UPDATE gateway_calls SET sends = sends + 1 WHERE id = ? AND state = 'sent'`);
    this.answerStmt = db.prepare(
      `UPDATE gateway_calls SET state = 'answered', result = ?, settled_at = ? WHERE id = ? AND state = 'sent'`,
    );
    this.lateAnswerStmt = db.prepare(
      `UPDATE gateway_calls SET result = ? WHERE id = ? AND state = 'abandoned' AND result IS NULL`,
    );
    this.abandonStmt = db.prepare(
      `UPDATE gateway_calls SET state = 'abandoned', settled_at = ? WHERE id = ? AND state = 'sent'`,
    );
    this.findStmt = db.prepare('SELECT * FROM gateway_calls WHERE id = ?');
    this.abandonAllStmt = db.prepare(`UPDATE gateway_calls SET state = 'abandoned', settled_at = ? WHERE state = 'sent'`);
    this.pruneStmt = db.prepare(`DELETE FROM gateway_calls WHERE state != 'sent' AND settled_at < ?`);
  }

  insert(s: GatewayCallStart): void {
    this.insertStmt.run(s.id, s.workspaceId, s.sessionId, s.tool, s.args, s.tokenId, s.sentAt);
  }

  resent(id: string): void {
    this.resentStmt.run(id);
  }

  answer(id: string, result: string, at: number): boolean {
    if (this.answerStmt.run(result, at, id).changes === 1) return true;
    this.lateAnswerStmt.run(result, id);
    return false;
  }

  abandon(id: string, at: number): boolean {
    return this.abandonStmt.run(at, id).changes === 1;
  }

  find(id: string): GatewayCallRecord | undefined {
    const row = this.findStmt.get(id) as Raw | undefined;
    return row ? fromRaw(row) : undefined;
  }

  abandonAllSent(at: number): number {
    return this.abandonAllStmt.run(at).changes;
  }

  pruneSettledBefore(time: number): number {
    return this.pruneStmt.run(time).changes;
  }
}
