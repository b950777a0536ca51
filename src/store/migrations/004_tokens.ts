import type { Migration } from '../migration.js';

/** Scoped bearer tokens created by `berth token create`; only their SHA-256 is stored. */
export const m004Tokens: Migration = {
  id: 4,
  name: 'tokens',
  sql: `
    CREATE TABLE tokens (
      id TEXT PRIMARY KEY,
      hash TEXT NOT NULL UNIQUE,
      scope TEXT NOT NULL CHECK (scope IN ('channel', 'app')),
      workspace_id TEXT,
      app_name TEXT,
      max_policy TEXT CHECK (max_policy IS NULL OR max_policy IN ('read', 'write', 'critical')),
      created_at INTEGER NOT NULL,
      revoked_at INTEGER
    );
  `,
};
