import type { Migration } from '../migration.js';

/**
 * How many messages wait in each tab's inbox, kept beside the messages.
 * `send` and `list` report the number at every question; counting the rows
 * each time grows with the inbox (a tab that reads its inbox late may hold
 * thousands). The repositories change it in the same transaction as the rows
 * it counts; a session deleted takes its count with it.
 */
export const m008ModuleInboxWaiting: Migration = {
  id: 8,
  name: 'module_inbox_waiting',
  sql: `
    CREATE TABLE module_inbox_waiting (
      session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
      waiting INTEGER NOT NULL CHECK (waiting >= 0)
    );
    INSERT INTO module_inbox_waiting (session_id, waiting)
      SELECT to_session_id, COUNT(*) FROM module_inbox GROUP BY to_session_id;
  `,
};
