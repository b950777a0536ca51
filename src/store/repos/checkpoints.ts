import type { Db } from '../sqlite.js';

/** One file effect as stored (migration 12); the tool layer names its own type for it (tools/checkpoints/records.ts). */
export interface CheckpointEffectRow {
  readonly id: number;
  readonly sessionId: string;
  readonly promptId: string | null;
  readonly callId: string;
  readonly path: string;
  readonly prior: 'absent' | 'file' | 'unknown' | 'evicted';
  readonly priorSha256: string | null;
  readonly after: 'pending' | 'file' | 'absent';
  readonly afterSha256: string | null;
  readonly undoneBy: string | null;
  readonly at: number;
}

export type NewCheckpointEffectRow = Omit<CheckpointEffectRow, 'id' | 'after' | 'afterSha256' | 'undoneBy'>;

const COLUMNS = `id, session_id AS sessionId, prompt_id AS promptId, call_id AS callId, path, prior,
  prior_sha256 AS priorSha256, after, after_sha256 AS afterSha256, undone_by AS undoneBy, at`;

/** File checkpoints in SQLite: contents by SHA-256 per session, and the effects that need them. */
export class SqliteCheckpointRepository {
  private readonly putBlobStmt;
  private readonly blobStmt;
  private readonly bytesStmt;
  private readonly addStmt;
  private readonly settleStmt;
  private readonly dropStmt;
  private readonly effectsStmt;
  private readonly evictStmt;
  private readonly sweepStmt;
  private readonly undoStmt;
  private readonly undoMany;

  constructor(db: Db) {
    this.putBlobStmt = db.prepare('INSERT OR IGNORE INTO checkpoint_blobs (session_id, sha256, size, content) VALUES (?, ?, ?, ?)');
    this.blobStmt = db.prepare('SELECT content FROM checkpoint_blobs WHERE session_id = ? AND sha256 = ?').pluck();
    this.bytesStmt = db.prepare('SELECT COALESCE(SUM(size), 0) FROM checkpoint_blobs WHERE session_id = ?').pluck();
    this.addStmt = db.prepare(
      `INSERT INTO checkpoint_effects (session_id, prompt_id, call_id, path, prior, prior_sha256, after, at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)`,
    );
    this.settleStmt = db.prepare('UPDATE checkpoint_effects SET after = ?, after_sha256 = ? WHERE id = ?');
    this.dropStmt = db.prepare('DELETE FROM checkpoint_effects WHERE id = ?');
    this.effectsStmt = db.prepare(`SELECT ${COLUMNS} FROM checkpoint_effects WHERE session_id = ? ORDER BY id`);
    this.evictStmt = db.prepare(
      `UPDATE checkpoint_effects SET prior = 'evicted' WHERE id =
         (SELECT id FROM checkpoint_effects WHERE session_id = ? AND prior = 'file' ORDER BY undone_by IS NULL, id LIMIT 1)`,
    );
    this.sweepStmt = db.prepare(
      `DELETE FROM checkpoint_blobs WHERE session_id = ? AND sha256 NOT IN
         (SELECT prior_sha256 FROM checkpoint_effects WHERE session_id = ? AND prior = 'file')`,
    );
    this.undoStmt = db.prepare('UPDATE checkpoint_effects SET undone_by = ? WHERE id = ?');
    this.undoMany = db.transaction((ids: readonly number[], rewindId: string) => {
      for (const id of ids) this.undoStmt.run(rewindId, id);
    });
  }

  async putBlob(sessionId: string, sha256: string, content: Buffer): Promise<void> {
    this.putBlobStmt.run(sessionId, sha256, content.length, content);
  }

  async blob(sessionId: string, sha256: string): Promise<Buffer | undefined> {
    return this.blobStmt.get(sessionId, sha256) as Buffer | undefined;
  }

  async blobBytes(sessionId: string): Promise<number> {
    return Number(this.bytesStmt.get(sessionId));
  }

  async addEffect(e: NewCheckpointEffectRow): Promise<number> {
    return Number(this.addStmt.run(e.sessionId, e.promptId, e.callId, e.path, e.prior, e.priorSha256, e.at).lastInsertRowid);
  }

  async settleEffect(id: number, after: 'file' | 'absent', afterSha256: string | null): Promise<void> {
    this.settleStmt.run(after, afterSha256, id);
  }

  async dropEffect(id: number): Promise<void> {
    this.dropStmt.run(id);
  }

  async effects(sessionId: string): Promise<CheckpointEffectRow[]> {
    return this.effectsStmt.all(sessionId) as CheckpointEffectRow[];
  }

  /** Gives up a kept content of the session (an undone effect's first, then the oldest); false when none is left. */
  async evictOldest(sessionId: string): Promise<boolean> {
    const changed = this.evictStmt.run(sessionId).changes > 0;
    this.sweepStmt.run(sessionId, sessionId);
    return changed;
  }

  async markUndone(ids: readonly number[], rewindId: string): Promise<void> {
    this.undoMany(ids, rewindId);
  }
}
