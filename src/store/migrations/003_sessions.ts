import type { Migration } from '../migration.js';

/**
 * Sessions, their transcript records and the prompt ledger (docs/architecture.md,
 * Persistence). A session row exists from creation, so an id is
 * never reused; transcript records are appended as a turn runs; the prompt
 * ledger lets a restart report every admitted prompt's fate.
 */
export const m003Sessions: Migration = {
  id: 3,
  name: 'sessions',
  sql: `
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL,
      scope TEXT NOT NULL CHECK (scope IN ('single', 'thread')),
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      display_name TEXT,
      title_source TEXT,
      prs TEXT NOT NULL DEFAULT '[]',
      model_id TEXT,
      approval_mode TEXT NOT NULL,
      source_type TEXT,
      source_id TEXT,
      worktree TEXT,
      branch TEXT,
      current_cwd TEXT,
      closed_at INTEGER,
      close_reason TEXT
    );
    CREATE INDEX sessions_by_workspace ON sessions (workspace_id, created_at);

    CREATE TABLE transcript (
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      record_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      prompt_id TEXT,
      at INTEGER NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
    CREATE UNIQUE INDEX transcript_record_id ON transcript (record_id);

    CREATE TABLE prompts (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      content TEXT NOT NULL,
      originator_client_id TEXT,
      queued_at INTEGER NOT NULL,
      started_at INTEGER,
      settled_at INTEGER,
      terminal TEXT,
      stop_reason TEXT,
      error_code TEXT
    );
    CREATE INDEX prompts_unsettled ON prompts (session_id) WHERE settled_at IS NULL;
  `,
};
