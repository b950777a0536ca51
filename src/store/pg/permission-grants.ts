import type { Async } from '../async.js';
import type { PermissionGrantRow, SqlitePermissionGrantRepository } from '../repos/permission-grants.js';
import type { PgDb } from './db.js';

/** Permission grants in PostgreSQL. */
export class PgPermissionGrantRepository<Scope extends string, Choice extends string>
  implements Async<SqlitePermissionGrantRepository<Scope, Choice>>
{
  constructor(private readonly db: PgDb) {}

  /** In key order by bytes, as SQLite reads them off its primary key. */
  applying(sessionId: string, workspaceId: string): Promise<PermissionGrantRow<Scope, Choice>[]> {
    return this.db.rows<PermissionGrantRow<Scope, Choice>>(
      `SELECT scope, scope_id AS "scopeId", grant_key AS key, choice, label, created_at AS "createdAt" FROM permission_grants
       WHERE (scope = 'session' AND scope_id = $1) OR (scope = 'workspace' AND scope_id = $2) OR scope = 'user'
       ORDER BY scope COLLATE "C", scope_id COLLATE "C", grant_key COLLATE "C"`,
      [sessionId, workspaceId],
    );
  }

  async put(row: PermissionGrantRow<Scope, Choice>): Promise<void> {
    await this.db.run(
      `INSERT INTO permission_grants (scope, scope_id, grant_key, choice, label, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (scope, scope_id, grant_key) DO UPDATE SET choice = excluded.choice, label = excluded.label, created_at = excluded.created_at`,
      [row.scope, row.scopeId, row.key, row.choice, row.label, row.createdAt],
    );
  }
}
