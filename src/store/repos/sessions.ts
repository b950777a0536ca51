import type { Db } from '../db.js';

/** A session as persisted: everything needed to list it and bring it back after a restart. */
export interface SessionRow {
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

export type SessionPatch = Partial<
  Pick<SessionRow, 'displayName' | 'titleSource' | 'prs' | 'modelId' | 'approvalMode' | 'closedAt' | 'closeReason'>
>;

/** Sessions behind an interface, so a shared server database can serve several daemons later. */
export interface SessionRepository {
  insert(row: SessionRow): void;
  get(id: string): SessionRow | undefined;
  update(id: string, patch: SessionPatch, now: number): void;
  listByWorkspace(workspaceId: string): SessionRow[];
  listAll(): SessionRow[];
  /** Marks every session not yet closed as closed at `now` for `reason`; returns how many. */
  closeAllOpen(reason: string, now: number): number;
}

interface Raw {
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

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

function fromRaw(r: Raw): SessionRow {
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

const COLUMNS: Record<keyof SessionPatch, string> = {
  displayName: 'display_name',
  titleSource: 'title_source',
  prs: 'prs',
  modelId: 'model_id',
  approvalMode: 'approval_mode',
  closedAt: 'closed_at',
  closeReason: 'close_reason',
};

export class SqliteSessionRepository implements SessionRepository {
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

  insert(row: SessionRow): void {
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

  get(id: string): SessionRow | undefined {
    const r = this.getStmt.get(id) as Raw | undefined;
    return r ? fromRaw(r) : undefined;
  }

  update(id: string, patch: SessionPatch, now: number): void {
    const sets: string[] = ['updated_at = @now'];
    const params: Record<string, unknown> = { id, now };
    for (const [key, column] of Object.entries(COLUMNS) as [keyof SessionPatch, string][]) {
      if (!(key in patch)) continue;
      sets.push(`${column} = @${column}`);
      params[column] = key === 'prs' ? JSON.stringify(patch.prs) : patch[key];
    }
    this.db.prepare(`UPDATE sessions SET ${sets.join(', ')} WHERE id = @id`).run(params);
  }

  listByWorkspace(workspaceId: string): SessionRow[] {
    return (this.db.prepare('SELECT * FROM sessions WHERE workspace_id = ? ORDER BY created_at').all(workspaceId) as Raw[]).map(
      fromRaw,
    );
  }

  listAll(): SessionRow[] {
    return (this.db.prepare('SELECT * FROM sessions ORDER BY created_at').all() as Raw[]).map(fromRaw);
  }

  closeAllOpen(reason: string, now: number): number {
    return this.closeOpenStmt.run(now, reason, now).changes;
  }
}
