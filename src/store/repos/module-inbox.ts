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
  private readonly insertTx;
  private readonly listStmt;
  private readonly oldestStmt;
  private readonly countStmt;
  private readonly takeAllTx;
  private readonly takeTx;

  constructor(db: Db) {
    const insert = db.prepare(
      `INSERT INTO module_inbox (id, to_session_id, from_session_id, from_tab, from_label, kind, text, hop, sent_at)
       VALUES (@id, @toSessionId, @fromSessionId, @fromTab, @fromLabel, @kind, @text, @hop, @sentAt)`,
    );
    // The waiting count (migration 8) changes in the transaction that adds or takes the messages it counts.
    const up = db.prepare(
      'INSERT INTO module_inbox_waiting (session_id, waiting) VALUES (?, 1) ON CONFLICT (session_id) DO UPDATE SET waiting = module_inbox_waiting.waiting + 1',
    );
    const down = db.prepare('UPDATE module_inbox_waiting SET waiting = waiting - 1 WHERE session_id = ?');
    this.insertTx = db.transaction((m: StoredMessage<Kind>) => {
      insert.run(m);
      up.run(m.toSessionId);
    });
    this.listStmt = db.prepare('SELECT * FROM module_inbox WHERE to_session_id = ? ORDER BY seq');
    this.oldestStmt = db.prepare('SELECT * FROM module_inbox WHERE to_session_id = ? ORDER BY seq LIMIT 1');
    this.countStmt = db.prepare('SELECT waiting FROM module_inbox_waiting WHERE session_id = ?').pluck();
    const deleteAll = db.prepare('DELETE FROM module_inbox WHERE to_session_id = ?');
    const uncountAll = db.prepare('DELETE FROM module_inbox_waiting WHERE session_id = ?');
    this.takeAllTx = db.transaction((sessionId: string) => {
      const taken = this.listNow(sessionId);
      deleteAll.run(sessionId);
      uncountAll.run(sessionId);
      return taken;
    });
    const deleteOne = db.prepare('DELETE FROM module_inbox WHERE id = ? RETURNING to_session_id').pluck();
    this.takeTx = db.transaction((id: string) => {
      const to = deleteOne.get(id) as string | undefined;
      if (to === undefined) return false;
      down.run(to);
      return true;
    });
  }

  async add(message: StoredMessage<Kind>): Promise<void> {
    this.insertTx(message);
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
    return (this.countStmt.get(sessionId) as number | undefined) ?? 0;
  }

  /** `_open` and `_sessionId` (below) name who writes, which fences a cluster node's write; one daemon needs no fence. */
  async takeAll(sessionId: string, _open: boolean): Promise<StoredMessage<Kind>[]> {
    return this.takeAllTx(sessionId);
  }

  async take(id: string, _sessionId: string): Promise<boolean> {
    return this.takeTx(id);
  }
}
