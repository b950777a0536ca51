import type { Migration } from '../migration.js';

/** Daemon-wide facts: registered workspaces (id stable across restarts) and key/value metadata. */
export const m001Core: Migration = {
  id: 1,
  name: 'core',
  sql: `
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE workspaces (
      id TEXT PRIMARY KEY,
      kind TEXT NOT NULL CHECK (kind IN ('local', 'remote')),
      root TEXT,
      trusted INTEGER NOT NULL DEFAULT 1,
      created_at INTEGER NOT NULL
    );
  `,
};
