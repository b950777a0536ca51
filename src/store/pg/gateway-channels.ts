import type { PgDb } from './db.js';

const DB_NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
/** One advisory lock for every admission, so two nodes admitting at once cannot both take the last slot. */
const ADMISSION_LOCK = 0x6265_7274; // "bert"

export interface ChannelClaim {
  readonly claimId: string;
  readonly nodeId: string;
  readonly workspaceId: string;
  readonly tokenId: string;
}

/** Which limit refused a claim, or null when it was taken. */
export type ClaimRefusal = 'cluster' | 'token' | null;

/** The `gateway_channels` statements (migration 14); every time is the database's clock. */
export class PgGatewayChannelRepository {
  constructor(private readonly db: PgDb) {}

  /** Takes a slot when fewer than `maxTotal` live channels exist, and fewer than `maxPerToken` of the claim's token. */
  claim(claim: ChannelClaim, maxTotal: number, maxPerToken: number, leaseMs: number): Promise<ClaimRefusal> {
    return this.db.transaction(async (q) => {
      await q.rows('SELECT pg_advisory_xact_lock($1)', [ADMISSION_LOCK]);
      const [count] = await q.rows<{ total: number; mine: number }>(
        `SELECT count(*)::int AS total, (count(*) FILTER (WHERE token_id = $1))::int AS mine FROM gateway_channels WHERE expires_at >= ${DB_NOW}`,
        [claim.tokenId],
      );
      if (count!.total >= maxTotal) return 'cluster';
      if (count!.mine >= maxPerToken) return 'token';
      await q.run(
        `INSERT INTO gateway_channels (claim_id, node_id, workspace_id, token_id, expires_at, opened_at) VALUES ($1, $2, $3, $4, ${DB_NOW} + $5, ${DB_NOW})`,
        [claim.claimId, claim.nodeId, claim.workspaceId, claim.tokenId, leaseMs],
      );
      return null;
    });
  }

  /** The nodes holding live channels of a workspace, the one whose channel opened first leading (migration 15). */
  async holdersOf(workspaceId: string): Promise<string[]> {
    const rows = await this.db.rows<{ node_id: string }>(
      `SELECT node_id FROM gateway_channels WHERE workspace_id = $1 AND expires_at >= ${DB_NOW}
       GROUP BY node_id ORDER BY min(opened_at), node_id`,
      [workspaceId],
    );
    return rows.map((r) => r.node_id);
  }

  async release(claimId: string): Promise<void> {
    await this.db.run('DELETE FROM gateway_channels WHERE claim_id = $1', [claimId]);
  }

  /** Extends this node's live claims; the lapsed ones of a node that lived on are left to `clearNode`. */
  async renew(nodeId: string, claimIds: readonly string[], leaseMs: number): Promise<void> {
    if (claimIds.length === 0) return;
    await this.db.run(`UPDATE gateway_channels SET expires_at = ${DB_NOW} + $2 WHERE node_id = $1 AND claim_id = ANY($3::text[])`, [nodeId, leaseMs, claimIds]);
  }

  /** Drops every row of `nodeId`, expired or not: a process starting under that id holds no channel yet. */
  async clearNode(nodeId: string): Promise<void> {
    await this.db.run('DELETE FROM gateway_channels WHERE node_id = $1', [nodeId]);
  }
}
