import type { Migration } from '../migration.js';

/**
 * Session leases (docs/cluster-leases.md): which node of a cluster runs a live
 * session, until when (`expires_at`, milliseconds on the database's clock), and
 * the fencing `token` every write of that session carries. The token only ever
 * grows: a release sets `expires_at` to 0 and keeps the row, so a token is never
 * handed out twice. Only PostgreSQL stores use it (cluster mode); the migration
 * system has one list for both engines, so SQLite gets the empty table too.
 */
export const m013SessionLeases: Migration = {
  id: 13,
  name: 'session_leases',
  sql: `
    CREATE TABLE session_leases (
      session_id TEXT PRIMARY KEY,
      node_id TEXT NOT NULL,
      token INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX session_leases_node ON session_leases (node_id);
  `,
};
