import type { Db } from '../sqlite.js';

/** The workspace's next tab number, counted on (migration 17): a deleted session's number is never given again. */
const NEXT_TAB = `INSERT INTO module_tab_counters (workspace_id, last_tab) VALUES (?, 1)
  ON CONFLICT (workspace_id) DO UPDATE SET last_tab = last_tab + 1 RETURNING last_tab`;
/** Tab numbers and module-token hashes in SQLite (migration 6). */
export class SqliteModuleTabRepository {
  private readonly tabStmt;
  private readonly nextStmt;
  private readonly insertTabStmt;
  private readonly tokenStmt;
  private readonly hasTokenStmt;
  private readonly dropTokensStmt;
  private readonly insertTokenStmt;

  constructor(private readonly db: Db) {
    this.tabStmt = db.prepare('SELECT tab, workspace_id AS workspaceId FROM module_tabs WHERE session_id = ?');
    this.nextStmt = db.prepare(NEXT_TAB).pluck();
    this.insertTabStmt = db.prepare('INSERT INTO module_tabs (session_id, workspace_id, tab, created_at) VALUES (?, ?, ?, ?)');
    this.tokenStmt = db.prepare('SELECT session_id FROM module_tokens WHERE hash = ? ORDER BY session_id').pluck();
    this.hasTokenStmt = db.prepare('SELECT 1 FROM module_tokens WHERE session_id = ? LIMIT 1').pluck();
    this.dropTokensStmt = db.prepare('DELETE FROM module_tokens WHERE session_id = ?');
    this.insertTokenStmt = db.prepare('INSERT INTO module_tokens (hash, session_id, created_at) VALUES (?, ?, ?)');
  }

  async find(sessionId: string): Promise<{ tab: number; workspaceId: string } | undefined> {
    return this.tabStmt.get(sessionId) as { tab: number; workspaceId: string } | undefined;
  }

  async assign(sessionId: string, workspaceId: string, now: number): Promise<number> {
    return this.db.transaction(() => {
      const existing = this.tabStmt.get(sessionId) as { tab: number } | undefined;
      if (existing !== undefined) return existing.tab;
      const tab = this.nextStmt.get(workspaceId) as number;
      this.insertTabStmt.run(sessionId, workspaceId, tab, now);
      return tab;
    }).immediate();
  }

  async sessionsForToken(hash: string): Promise<string[]> {
    return this.tokenStmt.all(hash) as string[];
  }

  async hasToken(sessionId: string): Promise<boolean> {
    return this.hasTokenStmt.get(sessionId) !== undefined;
  }

  async addToken(hash: string, sessionId: string, now: number): Promise<void> {
    this.insertTokenStmt.run(hash, sessionId, now);
  }

  async replaceTokens(hash: string, sessionIds: readonly string[], now: number): Promise<void> {
    this.db.transaction(() => {
      for (const id of sessionIds) this.dropTokensStmt.run(id);
      for (const id of sessionIds) this.insertTokenStmt.run(hash, id, now);
    })();
  }
}
