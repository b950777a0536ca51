import type { Db } from '../sqlite.js';

/**
 * One inbox row as stored (migration 6). The messaging module owns the type it
 * reads (`InboxMessage` in messaging/records.ts) and the kind vocabulary, kept here as text.
 */
export interface StoredMessage<Kind extends string = string> {
  readonly id: string;
  readonly toSessionId: string;
  readonly fromSessionId: string;
  readonly fromTab: number;
  readonly fromLabel: string;
  readonly kind: Kind;
  readonly text: string;
  readonly hop: number;
  readonly sentAt: number;
}


/** A row as the driver returns it: the same columns and types on SQLite and PostgreSQL (BIGINT read as a number). */
export interface Raw {
  seq: number;
  id: string;
  to_session_id: string;
  from_session_id: string;
  from_tab: number;
  from_label: string;
  kind: string;
  text: string;
  hop: number;
  sent_at: number;
}

export const fromRaw = <Kind extends string>(r: Raw): StoredMessage<Kind> => ({
  id: r.id,
  toSessionId: r.to_session_id,
  fromSessionId: r.from_session_id,
  fromTab: r.from_tab,
  fromLabel: r.from_label,
  kind: r.kind as Kind,
  text: r.text,
  hop: r.hop,
  sentAt: r.sent_at,
});

/** Tab inboxes in SQLite. */
export class SqliteModuleInboxRepository<Kind extends string = string> {
  private readonly insertStmt;
  private readonly listStmt;
  private readonly oldestStmt;
  private readonly countStmt;
  private readonly deleteAllStmt;
  private readonly deleteStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO module_inbox (id, to_session_id, from_session_id, from_tab, from_label, kind, text, hop, sent_at)
       VALUES (@id, @toSessionId, @fromSessionId, @fromTab, @fromLabel, @kind, @text, @hop, @sentAt)`,
    );
    this.listStmt = db.prepare('SELECT * FROM module_inbox WHERE to_session_id = ? ORDER BY seq');
    this.oldestStmt = db.prepare('SELECT * FROM module_inbox WHERE to_session_id = ? ORDER BY seq LIMIT 1');
    this.countStmt = db.prepare('SELECT COUNT(*) FROM module_inbox WHERE to_session_id = ?').pluck();
    this.deleteAllStmt = db.prepare('DELETE FROM module_inbox WHERE to_session_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM module_inbox WHERE id = ?');
  }

  async add(message: StoredMessage<Kind>): Promise<void> {
    this.insertStmt.run(message);
  }

  async list(sessionId: string): Promise<StoredMessage<Kind>[]> {
    return this.listNow(sessionId);
  }

  private listNow(sessionId: string): StoredMessage<Kind>[] {
    return (this.listStmt.all(sessionId) as Raw[]).map((r) => fromRaw<Kind>(r));
  }

  async oldest(sessionId: string): Promise<StoredMessage<Kind> | undefined> {
    const r = this.oldestStmt.get(sessionId) as Raw | undefined;
    return r ? fromRaw<Kind>(r) : undefined;
  }

  async count(sessionId: string): Promise<number> {
    return this.countStmt.get(sessionId) as number;
  }

  async takeAll(sessionId: string): Promise<StoredMessage<Kind>[]> {
    return this.db.transaction(() => {
      const taken = this.listNow(sessionId);
      this.deleteAllStmt.run(sessionId);
      return taken;
    })();
  }

  async take(id: string): Promise<boolean> {
    return this.deleteStmt.run(id).changes > 0;
  }
}
