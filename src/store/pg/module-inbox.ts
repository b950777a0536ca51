import type { Async } from '../async.js';
import type { SqliteModuleInboxRepository, StoredMessage } from '../repos/module-inbox.js';
import type { PgDb } from './db.js';
import { type Raw, fromRaw } from '../repos/module-inbox.js';

/** Tab inboxes in PostgreSQL. */
export class PgModuleInboxRepository<Kind extends string = string> implements Async<SqliteModuleInboxRepository<Kind>> {
  constructor(private readonly db: PgDb) {}

  async add(m: StoredMessage<Kind>): Promise<void> {
    await this.db.run(
      `INSERT INTO module_inbox (id, to_session_id, from_session_id, from_tab, from_label, kind, text, hop, sent_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [m.id, m.toSessionId, m.fromSessionId, m.fromTab, m.fromLabel, m.kind, m.text, m.hop, m.sentAt],
    );
  }

  async list(sessionId: string): Promise<StoredMessage<Kind>[]> {
    return (await this.db.rows<Raw>('SELECT * FROM module_inbox WHERE to_session_id = $1 ORDER BY seq', [sessionId])).map((r) => fromRaw<Kind>(r));
  }

  async oldest(sessionId: string): Promise<StoredMessage<Kind> | undefined> {
    const [r] = await this.db.rows<Raw>('SELECT * FROM module_inbox WHERE to_session_id = $1 ORDER BY seq LIMIT 1', [sessionId]);
    return r ? fromRaw<Kind>(r) : undefined;
  }

  async count(sessionId: string): Promise<number> {
    const [r] = await this.db.rows<{ n: number }>('SELECT COUNT(*) AS n FROM module_inbox WHERE to_session_id = $1', [sessionId]);
    return r!.n;
  }

  /** One statement takes exactly what it deletes: a message added meanwhile (by another daemon) stays for the next take. */
  async takeAll(sessionId: string): Promise<StoredMessage<Kind>[]> {
    const rows = await this.db.rows<Raw>('DELETE FROM module_inbox WHERE to_session_id = $1 RETURNING *', [sessionId]);
    return rows.sort((a, b) => a.seq - b.seq).map((r) => fromRaw<Kind>(r));
  }

  async take(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM module_inbox WHERE id = $1', [id])) > 0;
  }
}
