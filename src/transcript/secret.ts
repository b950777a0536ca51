import { randomBytes } from 'node:crypto';
import type { Db } from '../store/db.js';

const KEY = 'transcript_token_secret';

/**
 * The per-home secret that signs transcript cursors and snapshots (docs/client-api.md §10.1:
 * an invalid or tampered cursor is refused). Kept in the store's `meta` table,
 * so cursors stay valid across restarts of the same home and mean nothing to
 * another home.
 */
export function transcriptSecret(db: Db): Buffer {
  db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(KEY, randomBytes(32).toString('hex'));
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(KEY) as { value: string };
  return Buffer.from(row.value, 'hex');
}
