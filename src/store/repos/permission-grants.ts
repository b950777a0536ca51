import type { Db } from '../sqlite.js';

/** A remembered permission choice as stored (migration 10); `choice` and `scope` are the sessions module's words. */
export interface PermissionGrantRow<Scope extends string = string, Choice extends string = string> {
  readonly scope: Scope;
  readonly scopeId: string;
  readonly key: string;
  readonly choice: Choice;
  readonly label: string;
  readonly createdAt: number;
}

/** Permission grants in SQLite. */
export class SqlitePermissionGrantRepository<Scope extends string, Choice extends string> {
  private readonly applyingStmt;
  private readonly putStmt;

  constructor(db: Db) {
    this.applyingStmt = db.prepare(
      `SELECT scope, scope_id AS scopeId, grant_key AS key, choice, label, created_at AS createdAt FROM permission_grants
       WHERE (scope = 'session' AND scope_id = ?) OR (scope = 'workspace' AND scope_id = ?) OR scope = 'user'`,
    );
    this.putStmt = db.prepare(
      `INSERT INTO permission_grants (scope, scope_id, grant_key, choice, label, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope, scope_id, grant_key) DO UPDATE SET choice = excluded.choice, label = excluded.label, created_at = excluded.created_at`,
    );
  }

  async applying(sessionId: string, workspaceId: string): Promise<PermissionGrantRow<Scope, Choice>[]> {
    return this.applyingStmt.all(sessionId, workspaceId) as PermissionGrantRow<Scope, Choice>[];
  }

  async put(row: PermissionGrantRow<Scope, Choice>): Promise<void> {
    this.putStmt.run(row.scope, row.scopeId, row.key, row.choice, row.label, row.createdAt);
  }
}
