import type { Db } from '../db.js';

/** How an admitted prompt ended (the durable prompt ledger, docs/client-api.md §5.3 `promptTerminals`). */
export type PromptTerminal = 'completed' | 'cancelled' | 'error' | 'interrupted' | 'removed';

export interface PromptRow {
  readonly id: string;
  readonly sessionId: string;
  readonly content: readonly unknown[];
  readonly originatorClientId: string | null;
  readonly queuedAt: number;
  readonly startedAt: number | null;
  readonly settledAt: number | null;
  readonly terminal: PromptTerminal | null;
  readonly stopReason: string | null;
  readonly errorCode: string | null;
}

export interface PromptRepository {
  admit(row: Pick<PromptRow, 'id' | 'sessionId' | 'content' | 'originatorClientId' | 'queuedAt'>): void;
  started(id: string, at: number): void;
  settle(id: string, at: number, terminal: PromptTerminal, stopReason: string | null, errorCode: string | null): void;
  unsettled(sessionId?: string): PromptRow[];
  settled(sessionId: string): PromptRow[];
}

interface Raw {
  id: string;
  session_id: string;
  content: string;
  originator_client_id: string | null;
  queued_at: number;
  started_at: number | null;
  settled_at: number | null;
  terminal: PromptTerminal | null;
  stop_reason: string | null;
  error_code: string | null;
}

const fromRaw = (r: Raw): PromptRow => ({
  id: r.id,
  sessionId: r.session_id,
  content: JSON.parse(r.content) as unknown[],
  originatorClientId: r.originator_client_id,
  queuedAt: r.queued_at,
  startedAt: r.started_at,
  settledAt: r.settled_at,
  terminal: r.terminal,
  stopReason: r.stop_reason,
  errorCode: r.error_code,
});

export class SqlitePromptRepository implements PromptRepository {
  private readonly admitStmt;
  private readonly startStmt;
  private readonly settleStmt;

  constructor(private readonly db: Db) {
    this.admitStmt = db.prepare(
      'INSERT INTO prompts (id, session_id, content, originator_client_id, queued_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.startStmt = db.prepare('UPDATE prompts SET started_at = ? WHERE id = ?');
    this.settleStmt = db.prepare(
      'UPDATE prompts SET settled_at = ?, terminal = ?, stop_reason = ?, error_code = ? WHERE id = ? AND settled_at IS NULL',
    );
  }

  admit(row: Pick<PromptRow, 'id' | 'sessionId' | 'content' | 'originatorClientId' | 'queuedAt'>): void {
    this.admitStmt.run(row.id, row.sessionId, JSON.stringify(row.content), row.originatorClientId, row.queuedAt);
  }

  started(id: string, at: number): void {
    this.startStmt.run(at, id);
  }

  settle(id: string, at: number, terminal: PromptTerminal, stopReason: string | null, errorCode: string | null): void {
    this.settleStmt.run(at, terminal, stopReason, errorCode, id);
  }

  unsettled(sessionId?: string): PromptRow[] {
    const rows = sessionId
      ? this.db.prepare('SELECT * FROM prompts WHERE settled_at IS NULL AND session_id = ? ORDER BY queued_at').all(sessionId)
      : this.db.prepare('SELECT * FROM prompts WHERE settled_at IS NULL ORDER BY queued_at').all();
    return (rows as Raw[]).map(fromRaw);
  }

  settled(sessionId: string): PromptRow[] {
    return (
      this.db.prepare('SELECT * FROM prompts WHERE settled_at IS NOT NULL AND session_id = ? ORDER BY queued_at').all(sessionId) as Raw[]
    ).map(fromRaw);
  }
}
