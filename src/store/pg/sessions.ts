import type { Async } from '../async.js';
import type { SqliteSessionRepository, StoredSession, StoredSessionPatch } from '../repos/sessions.js';
import type { PgDb } from './db.js';
import { type TabsWithRows, withTab, withTabAndLease } from './module-tabs.js';
import { type Raw, PATCH_COLUMNS, json, fromRaw } from '../repos/sessions.js';

const COLUMNS =
  'id, workspace_id, scope, created_at, updated_at, display_name, title_source, prs, model_id, approval_mode, ' +
  'source_type, source_id, worktree, branch, current_cwd, closed_at, close_reason';
const VALUES = '$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17';
const INSERT = `INSERT INTO sessions (${COLUMNS}) VALUES (${VALUES})`;
/** The row and its tab number, stamped with its creation time ($4). */
const INSERT_WITH_TAB = withTab(INSERT, '$4');
/** The same, taking the new session's lease too on a cluster node ($18 the node, $19 the lease time). */
const INSERT_WITH_TAB_AND_LEASE = withTabAndLease(`INSERT INTO sessions (${COLUMNS}) SELECT ${VALUES} FROM taken`, '$4', '$18', '$19');

/** Sessions in PostgreSQL; `rowid` (dialect.ts) stands for SQLite's rowid as the paging position. */
export class PgSessionRepository implements Async<SqliteSessionRepository> {
  constructor(
    private readonly db: PgDb,
    /**
     * A daemon opens every new session as a tab right after storing its row: the row's statement
     * then gives it its tab number too (docs/store.md, Round trips), one round trip where the tab
     * number was a second one awaited after the first. Absent, a row is only a row.
     */
    private readonly tabs?: TabsWithRows,
  ) {}

  async insert(row: StoredSession): Promise<void> {
    const params = [
      row.id, row.workspaceId, row.scope, row.createdAt, row.updatedAt, row.displayName, row.titleSource, JSON.stringify(row.prs),
      row.modelId, row.approvalMode, row.sourceType, row.sourceId, json(row.worktree), json(row.branch), row.currentCwd,
      row.closedAt, row.closeReason,
    ];
    if (!this.tabs) {
      await this.db.run(INSERT, params);
      return;
    }
    const [given] = await this.db.rowsOf<{ tab: number }>({ sql: INSERT_WITH_TAB, params, leased: INSERT_WITH_TAB_AND_LEASE });
    this.tabs.gave(row.id, { tab: given!.tab, workspaceId: row.workspaceId });
  }

  async get(id: string): Promise<StoredSession | undefined> {
    const [r] = await this.db.rows<Raw>(`SELECT ${COLUMNS} FROM sessions WHERE id = $1`, [id]);
    return r ? fromRaw(r) : undefined;
  }

  async update(id: string, patch: StoredSessionPatch, now: number): Promise<void> {
    const params: unknown[] = [id, now];
    const sets: string[] = ['updated_at = $2'];
    for (const [key, column] of Object.entries(PATCH_COLUMNS) as [keyof StoredSessionPatch, string][]) {
      if (!(key in patch)) continue;
      params.push(key === 'prs' ? JSON.stringify(patch.prs) : patch[key]);
      sets.push(`${column} = $${params.length}`);
    }
    await this.db.run(`UPDATE sessions SET ${sets.join(', ')} WHERE id = $1`, params);
  }

  async listAfter(after: number, limit: number): Promise<{ row: StoredSession; position: number }[]> {
    const rows = await this.db.rows<Raw & { position: number }>(
      `SELECT rowid AS position, ${COLUMNS} FROM sessions WHERE rowid > $1 ORDER BY rowid LIMIT $2`,
      [after, limit],
    );
    return rows.map((r) => ({ row: fromRaw(r), position: r.position }));
  }

  closeAllOpen(reason: string, now: number): Promise<number> {
    return this.db.run('UPDATE sessions SET closed_at = $1, close_reason = $2, updated_at = $3 WHERE closed_at IS NULL', [now, reason, now]);
  }
}
