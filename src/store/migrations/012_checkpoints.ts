import type { Migration } from '../migration.js';

/**
 * File checkpoints (issue 14, docs/client-api.md §5.13): before a turn writes, patches or
 * deletes a file, its prior content (or its absence) is kept so a rewind can put it back.
 * Contents are stored once per session by SHA-256 (`checkpoint_blobs`); each effect names
 * the blob it needs (`checkpoint_effects.prior_sha256`). `prior` is `absent` (no file was
 * there), `file` (the blob holds it), `unknown` (it could not be kept: binary, too large)
 * or `evicted` (the session's byte budget dropped the blob). `after` is what the call
 * left: `pending` until it settles, then `file` (with `after_sha256`) or `absent`.
 * `undone_by` names the rewind that put the file back.
 */
export const m012Checkpoints: Migration = {
  id: 12,
  name: 'checkpoints',
  sql: `
    CREATE TABLE checkpoint_blobs (
      session_id TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      size INTEGER NOT NULL,
      content BLOB NOT NULL,
      PRIMARY KEY (session_id, sha256)
    ) WITHOUT ROWID;
    CREATE TABLE checkpoint_effects (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id TEXT NOT NULL,
      prompt_id TEXT,
      call_id TEXT NOT NULL,
      path TEXT NOT NULL,
      prior TEXT NOT NULL CHECK (prior IN ('absent', 'file', 'unknown', 'evicted')),
      prior_sha256 TEXT,
      after TEXT NOT NULL CHECK (after IN ('pending', 'file', 'absent')),
      after_sha256 TEXT,
      undone_by TEXT,
      at INTEGER NOT NULL
    );
    CREATE INDEX checkpoint_effects_session ON checkpoint_effects (session_id, id);
  `,
};
