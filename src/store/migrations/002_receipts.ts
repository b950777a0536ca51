import type { Migration } from '../migration.js';

/**
 * Tool-call receipts (docs/architecture.md, Receipt; docs/gateway.md constraints: "Persist an
 * executing receipt before an effect, and persist its result before
 * acknowledging it"). Keyed by (namespace, call id): sessions, the gateway
 * owner and applications each keep their own id space. `tool_name` and
 * `args_digest` let a reused call id with different content be refused.
 */
export const m002Receipts: Migration = {
  id: 2,
  name: 'receipts',
  sql: `
    CREATE TABLE receipts (
      namespace TEXT NOT NULL,
      call_id TEXT NOT NULL,
      tool_name TEXT NOT NULL,
      args_digest TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('executing', 'completed')),
      outcome TEXT,
      started_at INTEGER NOT NULL,
      finished_at INTEGER,
      PRIMARY KEY (namespace, call_id)
    );
    CREATE INDEX receipts_finished_at ON receipts (finished_at);
  `,
};
