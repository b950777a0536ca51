import type { Queryer } from './db.js';

/**
 * The lease table's statements (docs/cluster-leases.md). Every time is the
 * database's clock in milliseconds, never a node's: two nodes whose clocks
 * disagree still agree on whether a lease has expired.
 */
const DB_NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/**
 * Takes a lease (`session`, `node`, `leaseMs`: the parameters naming them) unless another node
 * holds a valid one; answers its token.
 */
export const acquiring = (session: string, node: string, leaseMs: string): string =>
  `INSERT INTO session_leases (session_id, node_id, token, expires_at) VALUES (${session}, ${node}, 1, ${DB_NOW} + ${leaseMs})
  ON CONFLICT (session_id) DO UPDATE SET node_id = EXCLUDED.node_id, token = session_leases.token + 1, expires_at = EXCLUDED.expires_at
  WHERE session_leases.expires_at < ${DB_NOW} OR session_leases.node_id = EXCLUDED.node_id
  RETURNING token`;

/** Takes a lease ($1 session, $2 node, $3 lease time) unless another node holds a valid one; answers its token. */
export const ACQUIRE = acquiring('$1', '$2', '$3');

export interface LeaseRow {
  readonly sessionId: string;
  readonly nodeId: string;
  readonly token: number;
  /** Whether it has not expired yet, by the database's clock. */
  readonly valid: boolean;
}

export class PgLeaseRepository {
  constructor(private readonly db: Queryer) {}

  /**
   * Takes the session for `nodeId` when nobody holds a valid lease on it (or this
   * node already does), with a new token; null when another node holds it. One
   * statement: of two nodes racing, the row lock lets exactly one through.
   */
  async acquire(sessionId: string, nodeId: string, leaseMs: number): Promise<number | null> {
    const [row] = await this.db.rows<{ token: number }>(ACQUIRE, [sessionId, nodeId, leaseMs]);
    return row ? row.token : null;
  }

  /**
   * Extends the leases of `sessionIds` that `nodeId` still holds and has not released, in one
   * statement; answers them with their tokens. Only the ones named: leases an earlier process
   * under the same node id left stay free to take.
   */
  async renew(nodeId: string, sessionIds: readonly string[], leaseMs: number): Promise<Map<string, number>> {
    if (sessionIds.length === 0) return new Map();
    const rows = await this.db.rows<{ session_id: string; token: number }>(
      `UPDATE session_leases SET expires_at = ${DB_NOW} + $2
       WHERE node_id = $1 AND session_id = ANY($3::text[]) AND expires_at > 0 RETURNING session_id, token`,
      [nodeId, leaseMs, sessionIds],
    );
    return new Map(rows.map((r) => [r.session_id, r.token]));
  }

  /** Lets the session go at once (expired now), keeping the row so its token keeps growing. */
  async release(sessionId: string, nodeId: string, token: number): Promise<void> {
    await this.db.run('UPDATE session_leases SET expires_at = 0 WHERE session_id = $1 AND node_id = $2 AND token = $3', [sessionId, nodeId, token]);
  }

  /** Lets every session of `nodeId` go (a drain). */
  async releaseAll(nodeId: string): Promise<number> {
    return this.db.run('UPDATE session_leases SET expires_at = 0 WHERE node_id = $1 AND expires_at > 0', [nodeId]);
  }

  async get(sessionId: string): Promise<LeaseRow | undefined> {
    const [row] = await this.db.rows<{ session_id: string; node_id: string; token: number; valid: boolean }>(
      `SELECT session_id, node_id, token, expires_at >= ${DB_NOW} AS valid FROM session_leases WHERE session_id = $1`,
      [sessionId],
    );
    return row && { sessionId: row.session_id, nodeId: row.node_id, token: row.token, valid: row.valid };
  }

  /** The nodes but `nodeId` holding a valid lease on a module tab of the workspace: whom a module `list` asks. */
  async nodesWithTabs(workspaceId: string, nodeId: string): Promise<string[]> {
    const rows = await this.db.rows<{ node_id: string }>(
      `SELECT DISTINCT l.node_id FROM session_leases l JOIN module_tabs t ON t.session_id = l.session_id
       WHERE t.workspace_id = $1 AND l.node_id <> $2 AND l.expires_at >= ${DB_NOW}`,
      [workspaceId, nodeId],
    );
    return rows.map((r) => r.node_id);
  }

  /** Of `sessionIds`, the node holding each one's valid lease; one statement for them all. */
  async holders(sessionIds: readonly string[]): Promise<Map<string, string>> {
    if (sessionIds.length === 0) return new Map();
    const rows = await this.db.rows<{ session_id: string; node_id: string }>(
      `SELECT session_id, node_id FROM session_leases WHERE session_id = ANY($1::text[]) AND expires_at >= ${DB_NOW}`,
      [sessionIds],
    );
    return new Map(rows.map((r) => [r.session_id, r.node_id]));
  }
}
