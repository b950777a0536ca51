import type { Async } from '../async.js';
import type { SqliteGatewayCallRepository, StoredGatewayCall, StoredGatewayCallAnswer, StoredGatewayCallStart } from '../repos/gateway-calls.js';
import type { PgDb, Queryer } from './db.js';
import { type Raw, fromRaw } from '../repos/gateway-calls.js';

const INSERT_SQL = `INSERT INTO gateway_calls (id, workspace_id, session_id, tool, args, token_id, state, sent_at, node_id)
  VALUES ($1, $2, $3, $4, $5, $6, 'sent', $7, $8)`;

/**
 * The outgoing-call journal in PostgreSQL. On a node of a cluster (`nodeId`), each call row
 * names its node, and a restart abandons only that node's calls (migration 14).
 *
 * Its writes are the node's own, fenced by no session's lease: a row is the journal of the node
 * holding the workspace's gateway channel, written for sessions of any node (a call relayed from
 * the session's node), and moves to another node by adoption. A call's effect is kept once-only
 * by the calling session's receipt, which its lease fences.
 */
export class PgGatewayCallRepository implements Async<SqliteGatewayCallRepository> {
  private readonly db: PgDb;

  constructor(
    db: PgDb,
    private readonly nodeId: string | null = null,
  ) {
    this.db = db.nodeWide;
  }

  async insert(s: StoredGatewayCallStart): Promise<void> {
    // Promised: the frame leaves only once the journal row is durable.
    await this.db.promised.run(INSERT_SQL, this.insertParams(s));
  }

  /** One transaction: one commit for the batch instead of one per row. */
  async writeRows(starts: readonly StoredGatewayCallStart[], answers: readonly StoredGatewayCallAnswer[]): Promise<void> {
    await this.db.transaction(async (q) => {
      for (const s of starts) await q.run(INSERT_SQL, this.insertParams(s));
      for (const a of answers) await answerRow(q, a.id, a.result, a.at);
    });
  }

  private insertParams(s: StoredGatewayCallStart): unknown[] {
    return [s.id, s.workspaceId, s.sessionId, s.tool, s.args, s.tokenId, s.sentAt, this.nodeId];
  }

  async resent(id: string): Promise<void> {
    await this.db.run(`UPDATE gateway_calls SET sends = sends + 1 WHERE id = $1 AND state = 'sent'`, [id]);
  }

  async adopt(id: string, fromNode: string): Promise<boolean> {
    // Promised: the adopting node sends the frame only once the row is its own.
    const moved = await this.db.promised.run(
      `UPDATE gateway_calls SET node_id = $1, sends = sends + 1 WHERE id = $2 AND state = 'sent' AND node_id = $3`,
      [this.nodeId, id, fromNode],
    );
    return moved === 1;
  }

  /** True when this answer settled the call; a late answer to an abandoned call is kept beside it. */
  answer(id: string, result: string, at: number): Promise<boolean> {
    return this.db.unit((q) => answerRow(q, id, result, at));
  }

  async abandon(id: string, at: number): Promise<boolean> {
    return (await this.db.run(`UPDATE gateway_calls SET state = 'abandoned', settled_at = $1 WHERE id = $2 AND state = 'sent'`, [at, id])) === 1;
  }

  async find(id: string): Promise<StoredGatewayCall | undefined> {
    const [row] = await this.db.rows<Raw>('SELECT * FROM gateway_calls WHERE id = $1', [id]);
    return row ? fromRaw(row) : undefined;
  }

  abandonAllSent(at: number): Promise<number> {
    return this.db.run(`UPDATE gateway_calls SET state = 'abandoned', settled_at = $1 WHERE state = 'sent' AND node_id IS NOT DISTINCT FROM $2`, [at, this.nodeId]);
  }

  /**
   * Also deletes another node's calls still `sent` from before `time`: no call waits the journal's
   * whole retention, so their node died and never came back under its id to abandon them. Left,
   * a fleet whose node ids change (one per container) would keep them for ever.
   */
  pruneSettledBefore(time: number): Promise<number> {
    return this.db.run(
      `DELETE FROM gateway_calls WHERE (state != 'sent' AND settled_at < $1) OR (state = 'sent' AND node_id IS DISTINCT FROM $2 AND sent_at < $1)`,
      [time, this.nodeId],
    );
  }
}

async function answerRow(q: Queryer, id: string, result: string, at: number): Promise<boolean> {
  const answered = await q.run(`UPDATE gateway_calls SET state = 'answered', result = $1, settled_at = $2 WHERE id = $3 AND state = 'sent'`, [
    result,
    at,
    id,
  ]);
  if (answered === 1) return true;
  await q.run(`UPDATE gateway_calls SET result = $1 WHERE id = $2 AND state = 'abandoned' AND result IS NULL`, [result, id]);
  return false;
}
