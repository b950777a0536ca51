import type { Async } from '../async.js';
import type { CheckpointEffectRow, NewCheckpointEffectRow, SqliteCheckpointRepository } from '../repos/checkpoints.js';
import type { PgDb } from './db.js';

const COLUMNS = `id, session_id AS "sessionId", prompt_id AS "promptId", call_id AS "callId", path, prior,
  prior_sha256 AS "priorSha256", after, after_sha256 AS "afterSha256", undone_by AS "undoneBy", at`;

/** File checkpoints in PostgreSQL: contents (BYTEA) by SHA-256 per session, and the effects that need them. */
export class PgCheckpointRepository implements Async<SqliteCheckpointRepository> {
  constructor(private readonly db: PgDb) {}

  async putBlob(sessionId: string, sha256: string, content: Buffer): Promise<void> {
    await this.db.run(
      'INSERT INTO checkpoint_blobs (session_id, sha256, size, content) VALUES ($1, $2, $3, $4) ON CONFLICT (session_id, sha256) DO NOTHING',
      [sessionId, sha256, content.length, content],
    );
  }

  async blob(sessionId: string, sha256: string): Promise<Buffer | undefined> {
    const [r] = await this.db.rows<{ content: Buffer }>('SELECT content FROM checkpoint_blobs WHERE session_id = $1 AND sha256 = $2', [sessionId, sha256]);
    return r?.content;
  }

  async blobBytes(sessionId: string): Promise<number> {
    // SUM of BIGINT is NUMERIC (a string from pg): cast back to BIGINT, which comes back a number.
    const [r] = await this.db.rows<{ n: number }>('SELECT COALESCE(SUM(size), 0)::bigint AS n FROM checkpoint_blobs WHERE session_id = $1', [sessionId]);
    return r!.n;
  }

  async addEffect(e: NewCheckpointEffectRow): Promise<number> {
    const [r] = await this.db.rows<{ id: number }>(
      `INSERT INTO checkpoint_effects (session_id, prompt_id, call_id, path, prior, prior_sha256, after, at)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7) RETURNING id`,
      [e.sessionId, e.promptId, e.callId, e.path, e.prior, e.priorSha256, e.at],
    );
    return r!.id;
  }

  async settleEffect(id: number, after: 'file' | 'absent', afterSha256: string | null): Promise<void> {
    await this.db.run('UPDATE checkpoint_effects SET after = $1, after_sha256 = $2 WHERE id = $3', [after, afterSha256, id]);
  }

  async dropEffect(id: number): Promise<void> {
    await this.db.run('DELETE FROM checkpoint_effects WHERE id = $1', [id]);
  }

  effects(sessionId: string): Promise<CheckpointEffectRow[]> {
    return this.db.rows<CheckpointEffectRow>(`SELECT ${COLUMNS} FROM checkpoint_effects WHERE session_id = $1 ORDER BY id`, [sessionId]);
  }

  /** Gives up a kept content of the session (an undone effect's first, then the oldest); false when none is left. */
  evictOldest(sessionId: string): Promise<boolean> {
    return this.db.transaction(async (q) => {
      const changed = await q.run(
        `UPDATE checkpoint_effects SET prior = 'evicted' WHERE id =
           (SELECT id FROM checkpoint_effects WHERE session_id = $1 AND prior = 'file' ORDER BY undone_by IS NULL, id LIMIT 1)`,
        [sessionId],
      );
      await q.run(
        `DELETE FROM checkpoint_blobs WHERE session_id = $1 AND sha256 NOT IN
           (SELECT prior_sha256 FROM checkpoint_effects WHERE session_id = $1 AND prior = 'file')`,
        [sessionId],
      );
      return changed > 0;
    });
  }

  markUndone(ids: readonly number[], rewindId: string): Promise<void> {
    return this.db.transaction(async (q) => {
      for (const id of ids) await q.run('UPDATE checkpoint_effects SET undone_by = $1 WHERE id = $2', [rewindId, id]);
    });
  }
}
