import type { Db } from '../db.js';

/** The kinds of docs/modules.md (`Kind`); `info` when a question names none. */
export type MessageKind = 'info' | 'question' | 'task' | 'report' | 'answer';

/** One message waiting in a tab's inbox (migration 6). */
export interface InboxMessage {
  readonly id: string;
  readonly toSessionId: string;
  readonly fromSessionId: string;
  readonly fromTab: number;
  /** How the sender is named to the receiver, e.g. `built-in · reviewer`. */
  readonly fromLabel: string;
  readonly kind: MessageKind;
  readonly text: string;
  /** The message's step in its chain of messages (src/messaging/rules.ts). */
  readonly hop: number;
  readonly sentAt: number;
}

/** Inboxes behind an interface, so a shared server database can serve several daemons later. */
export interface ModuleInboxRepository {
  add(message: InboxMessage): void;
  /** The session's messages, oldest first, without taking them. */
  list(sessionId: string): InboxMessage[];
  /** The oldest message, without taking it. */
  oldest(sessionId: string): InboxMessage | undefined;
  count(sessionId: string): number;
  /** Takes every message of the session, oldest first. */
  takeAll(sessionId: string): InboxMessage[];
  /** Takes one message by id; false when it was already gone. */
  take(id: string): boolean;
}

interface Raw {
  id: string;
  to_session_id: string;
  from_session_id: string;
  from_tab: number;
  from_label: string;
  kind: MessageKind;
  text: string;
  hop: number;
  sent_at: number;
}

const fromRaw = (r: Raw): InboxMessage => ({
  id: r.id,
  toSessionId: r.to_session_id,
  fromSessionId: r.from_session_id,
  fromTab: r.from_tab,
  fromLabel: r.from_label,
  kind: r.kind,
  text: r.text,
  hop: r.hop,
  sentAt: r.sent_at,
});

export class SqliteModuleInboxRepository implements ModuleInboxRepository {
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

  add(message: InboxMessage): void {
    this.insertStmt.run(message);
  }

  list(sessionId: string): InboxMessage[] {
    return (this.listStmt.all(sessionId) as Raw[]).map(fromRaw);
  }

  oldest(sessionId: string): InboxMessage | undefined {
    const r = this.oldestStmt.get(sessionId) as Raw | undefined;
    return r ? fromRaw(r) : undefined;
  }

  count(sessionId: string): number {
    return this.countStmt.get(sessionId) as number;
  }

  takeAll(sessionId: string): InboxMessage[] {
    return this.db.transaction(() => {
      const taken = this.list(sessionId);
      this.deleteAllStmt.run(sessionId);
      return taken;
    })();
  }

  take(id: string): boolean {
    return this.deleteStmt.run(id).changes > 0;
  }
}
