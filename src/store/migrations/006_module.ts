import type { Migration } from '../migration.js';

/**
 * The module protocol's durable state (docs/modules.md; docs/architecture.md, Persistence):
 * each session's tab number, the hashes of module tokens, and the inboxes.
 *
 * - `module_tabs`: a tab number is unique in its workspace and never given to
 *   another session, so a message addressed to "3" can only reach that session.
 * - `module_tokens`: one row per (token hash, session); a token shared by
 *   several sessions has several rows, and the question's `session` picks one.
 * - `module_inbox`: messages not yet delivered or taken, oldest first by `seq`;
 *   they survive a restart. `hop` is the message's step in its chain (rules).
 */
export const m006Module: Migration = {
  id: 6,
  name: 'module',
  sql: `
    CREATE TABLE module_tabs (
      session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
      workspace_id TEXT NOT NULL,
      tab INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (workspace_id, tab)
    );

    CREATE TABLE module_tokens (
      hash TEXT NOT NULL,
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (hash, session_id)
    ) WITHOUT ROWID;
    CREATE INDEX module_tokens_by_session ON module_tokens (session_id);

    CREATE TABLE module_inbox (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      to_session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      from_session_id TEXT NOT NULL,
      from_tab INTEGER NOT NULL,
      from_label TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('info', 'question', 'task', 'report', 'answer')),
      text TEXT NOT NULL,
      hop INTEGER NOT NULL,
      sent_at INTEGER NOT NULL
    );
    CREATE INDEX module_inbox_by_recipient ON module_inbox (to_session_id, seq);
  `,
};
