import type { Async } from '../async.js';
import type { SqliteTokenRepository, TokenRecord } from '../repos/tokens.js';
import type { PgDb } from './db.js';
import { type Raw, fromRaw } from '../repos/tokens.js';

/** Channel and application tokens in PostgreSQL. */
export class PgTokenRepository<Policy extends string = string> implements Async<SqliteTokenRepository<Policy>> {
  constructor(private readonly db: PgDb) {}

  async insert(token: TokenRecord<Policy>, createdAt: number): Promise<void> {
    await this.db.run(
      'INSERT INTO tokens (id, hash, scope, workspace_id, app_name, max_policy, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [token.id, token.hash, token.scope, token.workspaceId, token.appName, token.maxPolicy, createdAt],
    );
  }

  /** The token with this hash, unless revoked. */
  async findActive(hash: string): Promise<TokenRecord<Policy> | undefined> {
    const [r] = await this.db.rows<Raw>(
      'SELECT id, hash, scope, workspace_id, app_name, max_policy FROM tokens WHERE hash = $1 AND revoked_at IS NULL',
      [hash],
    );
    return r ? fromRaw<Policy>(r) : undefined;
  }
}
