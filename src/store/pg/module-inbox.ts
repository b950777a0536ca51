import type { Async } from '../async.js';
import type { SqliteModuleInboxRepository, StoredMessage } from '../repos/module-inbox.js';
import type { PgDb } from './db.js';
import { type Raw, fromRaw } from '../repos/module-inbox.js';

// The waiting count (migration 8) changes in the transaction that adds or takes the messages it counts.
const WAITING_UP = `INSERT INTO module_inbox_waiting (session_id, waiting) VALUES ($1, 1)
  ON CONFLICT (session_id) DO UPDATE SET waiting = module_inbox_waiting.waiting + 1`;
const WAITING_DOWN = 'UPDATE module_inbox_waiting SET waiting = waiting - $2 WHERE session_id = $1';

/** Tab inboxes in PostgreSQL: a message is written by its sender's run, taken by its receiver's, each fenced by that session's lease. */
export class PgModuleInboxRepository<Kind extends string = string> implements Async<SqliteModuleInboxRepository<Kind>> {
  constructor(private readonly db: PgDb) {}

  async add(m: StoredMessage<Kind>): Promise<void> {
    await this.db.for(m.fromSessionId).transaction(async (q) => {
      await q.run(
        `INSERT INTO module_inbox (id, to_session_id, from_session_id, from_tab, from_label, kind, text, hop, sent_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [m.id, m.toSessionId, m.fromSessionId, m.fromTab, m.fromLabel, m.kind, m.text, m.hop, m.sentAt],
      );
      await q.run(WAITING_UP, [m.toSessionId]);
    });
  }

  async list(sessionId: string): Promise<StoredMessage<Kind>[]> {
    return (await this.db.rows<Raw>('SELECT * FROM module_inbox WHERE to_session_id = $1 ORDER BY seq', [sessionId])).map((r) => fromRaw<Kind>(r));
  }

  async oldest(sessionId: string): Promise<StoredMessage<Kind> | undefined> {
    const [r] = await this.db.rows<Raw>('SELECT * FROM module_inbox WHERE to_session_id = $1 ORDER BY seq LIMIT 1', [sessionId]);
    return r ? fromRaw<Kind>(r) : undefined;
  }

  async count(sessionId: string): Promise<number> {
    const [r] = await this.db.rows<{ waiting: number }>('SELECT waiting FROM module_inbox_waiting WHERE session_id = $1', [sessionId]);
    return r?.waiting ?? 0;
  }

  /** One statement takes exactly what it deletes: a message added meanwhile (by another daemon) stays for the next take. */
  async takeAll(sessionId: string, open: boolean): Promise<StoredMessage<Kind>[]> {
    const rows = await (open ? this.db.for(sessionId) : this.db.nodeWide).transaction(async (q) => {
      const taken = await q.rows<Raw>('DELETE FROM module_inbox WHERE to_session_id = $1 RETURNING *', [sessionId]);
      if (taken.length > 0) await q.run(WAITING_DOWN, [sessionId, taken.length]);
      return taken;
    });
    return rows.sort((a, b) => a.seq - b.seq).map((r) => fromRaw<Kind>(r));
  }

  async take(id: string, sessionId: string): Promise<boolean> {
    return this.db.for(sessionId).transaction(async (q) => {
      const [taken] = await q.rows<{ to_session_id: string }>('DELETE FROM module_inbox WHERE id = $1 RETURNING to_session_id', [id]);
      if (taken === undefined) return false;
      await q.run(WAITING_DOWN, [taken.to_session_id, 1]);
      return true;
    });
  }
}
