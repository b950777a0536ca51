import type { Db } from '../sqlite.js';

/**
 * A session row as stored. The sessions module owns the type it reads
 * (`StoredSession` in sessions/records.ts); this is its column-level twin, and the
 * wiring that hands this repository to the sessions module checks they agree.
 */
export interface StoredSession {
  readonly id: string;
  readonly workspaceId: string;
  readonly scope: 'single' | 'thread';
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly displayName: string | null;
  readonly titleSource: string | null;
  readonly prs: readonly unknown[];
  readonly modelId: string | null;
  readonly approvalMode: string;
  readonly sourceType: string | null;
  readonly sourceId: string | null;
  readonly worktree: Record<string, unknown> | null;
  readonly branch: Record<string, unknown> | null;
  readonly currentCwd: string | null;
  readonly closedAt: number | null;
  readonly closeReason: string | null;
}

export type StoredSessionPatch = Partial<
  Pick<StoredSession, 'displayName' | 'titleSource' | 'prs' | 'modelId' | 'approvalMode' | 'closedAt' | 'closeReason'>
>;

/** A row as the driver returns it: the same columns and types on SQLite and PostgreSQL (BIGINT read as a number). */
export interface Raw {
  id: string;
  workspace_id: string;
  scope: 'single' | 'thread';
  created_at: number;
  updated_at: number;
  display_name: string | null;
  title_source: string | null;
  prs: string;
  model_id: string | null;
  approval_mode: string;
  source_type: string | null;
  source_id: string | null;
  worktree: string | null;
  branch: string | null;
  current_cwd: string | null;
  closed_at: number | null;
  close_reason: string | null;
}

export const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

export function fromRaw(r: Raw): StoredSession {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    scope: r.scope,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    displayName: r.display_name,
    titleSource: r.title_source,
    prs: JSON.parse(r.prs) as unknown[],
    modelId: r.model_id,
    approvalMode: r.approval_mode,
    sourceType: r.source_type,
    sourceId: r.source_id,
    worktree: r.worktree ? (JSON.parse(r.worktree) as Record<string, unknown>) : null,
    branch: r.branch ? (JSON.parse(r.branch) as Record<string, unknown>) : null,
    currentCwd: r.current_cwd,
    closedAt: r.closed_at,
    closeReason: r.close_reason,
  };
}

/** The column each patchable field is stored in, on both engines. */
export const PATCH_COLUMNS: Record<keyof StoredSessionPatch, string> = {
  displayName: 'display_name',
  titleSource: 'title_source',
  prs: 'prs',
  modelId: 'model_id',
  approvalMode: 'approval_mode',
  closedAt: 'closed_at',
  closeReason: 'close_reason',
};

/** Sessions in SQLite (migration 3). */
export class SqliteSessionRepository {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly closeOpenStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO sessions (id, workspace_id, scope, created_at, updated_at, display_name, title_source, prs,
         model_id, approval_mode, source_type, source_id, worktree, branch, current_cwd, closed_at, close_reason)
       VALUES (@id, @workspace_id, @scope, @created_at, @updated_at, @display_name, @title_source, @prs,
         @model_id, @approval_mode, @source_type, @source_id, @worktree, @branch, @current_cwd, @closed_at, @close_reason)`,
    );
    this.getStmt = db.prepare('SELECT * FROM sessions WHERE id = ?');
    this.closeOpenStmt = db.prepare('UPDATE sessions SET closed_at = ?, close_reason = ?, updated_at = ? WHERE closed_at IS NULL');
  }

  async insert(row: StoredSession): Promise<void> {
    this.insertStmt.run({
      id: row.id,
      workspace_id: row.workspaceId,
      scope: row.scope,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
      display_name: row.displayName,
      title_source: row.titleSource,
      prs: JSON.stringify(row.prs),
      model_id: row.modelId,
      approval_mode: row.approvalMode,
      source_type: row.sourceType,
      source_id: row.sourceId,
      worktree: json(row.worktree),
      branch: json(row.branch),
      current_cwd: row.currentCwd,
      closed_at: row.closedAt,
      close_reason: row.closeReason,
    });
  }

  async get(id: string): Promise<StoredSession | undefined> {
    const r = this.getStmt.get(id) as Raw | undefined;
    return r ? fromRaw(r) : undefined;
  }

  async update(id: string, patch: StoredSessionPatch, now: number): Promise<void> {
    const sets: string[] = ['updated_at = @now'];
    const params: Record<string, unknown> = { id, now };
    for (const [key, column] of Object.entries(PATCH_COLUMNS) as [keyof StoredSessionPatch, string][]) {
      if (!(key in patch)) continue;
      sets.push(`${column} = @${column}`);
      params[column] = key === 'prs' ? JSON.stringify(patch.prs) : patch[key];
    }
    this.db.prepare(`UPDATE sessions SET ${sets.join(', ')} WHERE id = @id`).run(params);
  }


  // The rowid orders sessions as they were stored and is its own index: a page costs its size, not the table's.
  async listAfter(after: number, limit: number): Promise<{ row: StoredSession; position: number }[]> {
    const rows = this.db.prepare('SELECT rowid AS position, * FROM sessions WHERE rowid > ? ORDER BY rowid LIMIT ?').all(after, limit) as (Raw & { position: number })[];
    return rows.map((r) => ({ row: fromRaw(r), position: r.position }));
  }

  async closeAllOpen(reason: string, now: number): Promise<number> {
    return this.closeOpenStmt.run(now, reason, now).changes;
  }
}
