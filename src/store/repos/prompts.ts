import type { Db } from '../sqlite.js';

/**
 * A prompt ledger row as stored (migration 3). The sessions module owns the
 * type it reads (`PromptRow` in sessions/records.ts); the terminal vocabulary is
 * its own too, kept here as text.
 */
export interface StoredPrompt<Terminal extends string = string> {
  readonly id: string;
  readonly sessionId: string;
  readonly content: readonly unknown[];
  readonly originatorClientId: string | null;
  readonly queuedAt: number;
  readonly startedAt: number | null;
  readonly settledAt: number | null;
  readonly terminal: Terminal | null;
  readonly stopReason: string | null;
  readonly errorCode: string | null;
}

/** What a prompt's row holds when it is admitted; `startedAt` when it starts at once (nothing ahead of it). */
export type AdmittedPrompt = Pick<StoredPrompt, 'id' | 'sessionId' | 'content' | 'originatorClientId' | 'queuedAt'> & { readonly startedAt?: number };

/** A row as the driver returns it: the same columns and types on SQLite and PostgreSQL (BIGINT read as a number). */
export interface Raw {
  id: string;
  session_id: string;
  content: string;
  originator_client_id: string | null;
  queued_at: number;
  started_at: number | null;
  settled_at: number | null;
  terminal: string | null;
  stop_reason: string | null;
  error_code: string | null;
}

export const fromRaw = <Terminal extends string>(r: Raw): StoredPrompt<Terminal> => ({
  id: r.id,
  sessionId: r.session_id,
  content: JSON.parse(r.content) as unknown[],
  originatorClientId: r.originator_client_id,
  queuedAt: r.queued_at,
  startedAt: r.started_at,
  settledAt: r.settled_at,
  terminal: r.terminal as Terminal | null,
  stopReason: r.stop_reason,
  errorCode: r.error_code,
});

/** The durable prompt ledger in SQLite. */
export class SqlitePromptRepository<Terminal extends string = string> {
  private readonly admitStmt;
  private readonly startStmt;
  private readonly settleStmt;
  private readonly refuseStmt;

  constructor(private readonly db: Db) {
    this.admitStmt = db.prepare(
      'INSERT INTO prompts (id, session_id, content, originator_client_id, queued_at, started_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.startStmt = db.prepare('UPDATE prompts SET started_at = ? WHERE id = ?');
    this.settleStmt = db.prepare(
      'UPDATE prompts SET settled_at = ?, terminal = ?, stop_reason = ?, error_code = ? WHERE id = ? AND settled_at IS NULL',
    );
    // A prompt that never joined its queue never started, whatever its row was admitted with.
    this.refuseStmt = db.prepare('UPDATE prompts SET settled_at = ?, terminal = ?, started_at = NULL WHERE id = ? AND settled_at IS NULL');
  }

  async admit(row: AdmittedPrompt): Promise<void> {
    this.admitStmt.run(row.id, row.sessionId, JSON.stringify(row.content), row.originatorClientId, row.queuedAt, row.startedAt ?? null);
  }

  async started(id: string, at: number): Promise<void> {
    this.startStmt.run(at, id);
  }

  async settle(id: string, at: number, terminal: Terminal, stopReason: string | null, errorCode: string | null): Promise<void> {
    this.settleStmt.run(at, terminal, stopReason, errorCode, id);
  }

  async refused(id: string, at: number, terminal: Terminal): Promise<void> {
    this.refuseStmt.run(at, terminal, id);
  }

  async unsettled(sessionId?: string): Promise<StoredPrompt<Terminal>[]> {
    const rows = sessionId
      ? this.db.prepare('SELECT * FROM prompts WHERE settled_at IS NULL AND session_id = ? ORDER BY queued_at').all(sessionId)
      : this.db.prepare('SELECT * FROM prompts WHERE settled_at IS NULL ORDER BY queued_at').all();
    return (rows as Raw[]).map((r) => fromRaw<Terminal>(r));
  }

  async settled(sessionId: string): Promise<StoredPrompt<Terminal>[]> {
    return (
      this.db.prepare('SELECT * FROM prompts WHERE settled_at IS NOT NULL AND session_id = ? ORDER BY queued_at').all(sessionId) as Raw[]
    ).map((r) => fromRaw<Terminal>(r));
  }
}
