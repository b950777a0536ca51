import type { Async } from '../async.js';
import type { AdmittedPrompt, SqlitePromptRepository, StoredPrompt } from '../repos/prompts.js';
import type { PgDb } from './db.js';
import { type Raw, fromRaw } from '../repos/prompts.js';

/** The durable prompt ledger in PostgreSQL. */
export class PgPromptRepository<Terminal extends string = string> implements Async<SqlitePromptRepository<Terminal>> {
  constructor(private readonly db: PgDb) {}

  async admit(row: AdmittedPrompt): Promise<void> {
    // Committed before the 202, not flushed: a crash of PostgreSQL or its machine may lose it, as an
    // OS crash may lose it from SQLite's default; no effect can repeat for it (docs/store.md, Commits).
    await this.db.run(
      'INSERT INTO prompts (id, session_id, content, originator_client_id, queued_at, started_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [row.id, row.sessionId, JSON.stringify(row.content), row.originatorClientId, row.queuedAt, row.startedAt ?? null],
    );
  }

  async started(id: string, at: number): Promise<void> {
    await this.db.run('UPDATE prompts SET started_at = $1 WHERE id = $2', [at, id]);
  }

  async settle(id: string, at: number, terminal: Terminal, stopReason: string | null, errorCode: string | null): Promise<void> {
    await this.db.run(
      'UPDATE prompts SET settled_at = $1, terminal = $2, stop_reason = $3, error_code = $4 WHERE id = $5 AND settled_at IS NULL',
      [at, terminal, stopReason, errorCode, id],
    );
  }

  async refused(id: string, at: number, terminal: Terminal): Promise<void> {
    // A prompt that never joined its queue never started, whatever its row was admitted with.
    await this.db.run('UPDATE prompts SET settled_at = $1, terminal = $2, started_at = NULL WHERE id = $3 AND settled_at IS NULL', [at, terminal, id]);
  }

  async unsettled(sessionId?: string): Promise<StoredPrompt<Terminal>[]> {
    const rows = sessionId
      ? await this.db.rows<Raw>('SELECT * FROM prompts WHERE settled_at IS NULL AND session_id = $1 ORDER BY queued_at', [sessionId])
      : await this.db.rows<Raw>('SELECT * FROM prompts WHERE settled_at IS NULL ORDER BY queued_at');
    return rows.map((r) => fromRaw<Terminal>(r));
  }

  async settled(sessionId: string): Promise<StoredPrompt<Terminal>[]> {
    const rows = await this.db.rows<Raw>('SELECT * FROM prompts WHERE settled_at IS NOT NULL AND session_id = $1 ORDER BY queued_at', [sessionId]);
    return rows.map((r) => fromRaw<Terminal>(r));
  }
}
