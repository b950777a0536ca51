import type { Migration } from '../migration.js';

/**
 * Remembered "always" permission choices (issue 14, docs/client-api.md §9.6): per
 * session, per workspace or for the daemon's user (`scope_id` ''), so they survive
 * a restart and a load. A later choice for the same key replaces the earlier one.
 */
export const m010PermissionGrants: Migration = {
  id: 10,
  name: 'permission_grants',
  sql: `
    CREATE TABLE permission_grants (
      scope TEXT NOT NULL CHECK (scope IN ('session', 'workspace', 'user')),
      scope_id TEXT NOT NULL,
      grant_key TEXT NOT NULL,
      choice TEXT NOT NULL CHECK (choice IN ('allow', 'reject')),
      label TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (scope, scope_id, grant_key)
    ) WITHOUT ROWID;
  `,
};
