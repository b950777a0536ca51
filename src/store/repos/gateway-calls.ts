import type { Db } from '../sqlite.js';

/** Where an outgoing gateway call stands: `sent`, `answered` or `abandoned`. */
type CallState = 'sent' | 'answered' | 'abandoned';

/**
 * One outgoing-call row as stored. The gateway host owns the type it reads
 * (`GatewayCallRecord` in gateway/host/call-journal.ts); this is its twin.
 */
export interface StoredGatewayCall {
  readonly id: string;
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly tool: string;
  readonly args: string;
  readonly tokenId: string;
  readonly state: CallState;
  readonly result: string | null;
  readonly sends: number;
  readonly sentAt: number;
  readonly settledAt: number | null;
}

export type StoredGatewayCallStart = Pick<StoredGatewayCall, 'id' | 'workspaceId' | 'sessionId' | 'tool' | 'args' | 'tokenId' | 'sentAt'>;

export interface StoredGatewayCallAnswer {
  readonly id: string;
  readonly result: string;
  readonly at: number;
}

/** A row as the driver returns it: the same columns and types on SQLite and PostgreSQL (BIGINT read as a number). */
export interface Raw {
  id: string;
  workspace_id: string;
  session_id: string;
  tool: string;
  args: string;
  token_id: string;
  state: CallState;
  result: string | null;
  sends: number;
  sent_at: number;
  settled_at: number | null;
}

export const fromRaw = (r: Raw): StoredGatewayCall => ({
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

/** The outgoing-call journal in SQLite. */
export class SqliteGatewayCallRepository {
  private readonly insertStmt;
  private readonly resentStmt;
  private readonly answerStmt;
  private readonly lateAnswerStmt;
  private readonly abandonStmt;
  private readonly findStmt;
  private readonly abandonAllStmt;
  private readonly pruneStmt;
  private readonly writeRowsTx: (starts: readonly StoredGatewayCallStart[], answers: readonly StoredGatewayCallAnswer[]) => void;

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
    this.writeRowsTx = db.transaction((starts: readonly StoredGatewayCallStart[], answers: readonly StoredGatewayCallAnswer[]) => {
      for (const start of starts) this.insertRow(start);
      for (const a of answers) this.answerRow(a.id, a.result, a.at);
    });
  }

  async insert(s: StoredGatewayCallStart): Promise<void> {
    this.insertRow(s);
  }

  /**
   * One transaction: one commit for the batch instead of one per row, and a page that a call's
   * `sent` row and its answer both change goes to the WAL once.
   */
  async writeRows(starts: readonly StoredGatewayCallStart[], answers: readonly StoredGatewayCallAnswer[]): Promise<void> {
    this.writeRowsTx(starts, answers);
  }

  private insertRow(s: StoredGatewayCallStart): void {
    this.insertStmt.run(s.id, s.workspaceId, s.sessionId, s.tool, s.args, s.tokenId, s.sentAt);
  }

  async resent(id: string): Promise<void> {
    this.resentStmt.run(id);
  }

  /** One daemon alone has no other node to take a call from (`_fromNode` is itself): it only counts the send. */
  async adopt(id: string, _fromNode: string): Promise<boolean> {
    return this.resentStmt.run(id).changes === 1;
  }

  async answer(id: string, result: string, at: number): Promise<boolean> {
    return this.answerRow(id, result, at);
  }

  async abandon(id: string, at: number): Promise<boolean> {
    return this.abandonStmt.run(at, id).changes === 1;
  }

  private answerRow(id: string, result: string, at: number): boolean {
    if (this.answerStmt.run(result, at, id).changes === 1) return true;
    this.lateAnswerStmt.run(result, id);
    return false;
  }

  async find(id: string): Promise<StoredGatewayCall | undefined> {
    const row = this.findStmt.get(id) as Raw | undefined;
    return row ? fromRaw(row) : undefined;
  }

  async abandonAllSent(at: number): Promise<number> {
    return this.abandonAllStmt.run(at).changes;
  }

  async pruneSettledBefore(time: number): Promise<number> {
    return this.pruneStmt.run(time).changes;
  }
}
