import type { Db } from '../sqlite.js';

/** One stored bearer token: only its SHA-256 is kept (migration 4). */
export interface TokenRecord<Policy extends string = string> {
  readonly id: string;
  readonly hash: string;
  readonly scope: 'channel' | 'app';
  readonly workspaceId: string | null;
  readonly appName: string | null;
  readonly maxPolicy: Policy | null;
}

/** A row as the driver returns it: the same columns and types on SQLite and PostgreSQL (BIGINT read as a number). */
export interface Raw {
  id: string;
  hash: string;
  scope: 'channel' | 'app';
  workspace_id: string | null;
  app_name: string | null;
  max_policy: string | null;
}

export const fromRaw = <Policy extends string>(r: Raw): TokenRecord<Policy> => ({
  id: r.id,
  hash: r.hash,
  scope: r.scope,
  workspaceId: r.workspace_id,
  appName: r.app_name,
  maxPolicy: r.max_policy as Policy | null,
});

/**
 * Channel and application tokens. The policy vocabulary is the tool layer's;
 * the store keeps it as text, so the caller names the type it reads back.
 */
export class SqliteTokenRepository<Policy extends string = string> {
  // Prepared once: a lookup runs on every request and upgrade that carries a bearer other than the owner's.
  private readonly insertStmt;
  private readonly byHashStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO tokens (id, hash, scope, workspace_id, app_name, max_policy, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.byHashStmt = db.prepare(
      'SELECT id, hash, scope, workspace_id, app_name, max_policy FROM tokens WHERE hash = ? AND revoked_at IS NULL',
    );
  }

  async insert(token: TokenRecord<Policy>, createdAt: number): Promise<void> {
    this.insertStmt.run(token.id, token.hash, token.scope, token.workspaceId, token.appName, token.maxPolicy, createdAt);
  }

  /** The token with this hash, unless revoked. */
  async findActive(hash: string): Promise<TokenRecord<Policy> | undefined> {
    const r = this.byHashStmt.get(hash) as Raw | undefined;
    return r ? fromRaw<Policy>(r) : undefined;
  }
}
