import type { Migration } from '../migration.js';

/**
 * B's journal of outgoing gateway calls (docs/gateway.md: "B journals each
 * outgoing call before sending it"). A row is written before the call's first
 * frame leaves, so after a reconnect every call still `sent` is sent again
 * with the same id, and a duplicate result finds its call already `answered`.
 * `token_id` pins a call to the owner it went to: only that owner's receipt
 * store can tell whether it ran. `sends` counts the frames sent for it.
 */
export const m005GatewayCalls: Migration = {
  id: 5,
  name: 'gateway_calls',
  sql: `
    CREATE TABLE gateway_calls (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL,
      session_id TEXT NOT NULL,
      tool TEXT NOT NULL,
      args TEXT NOT NULL,
      token_id TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('sent', 'answered', 'abandoned')),
      result TEXT,
      sends INTEGER NOT NULL DEFAULT 1,
      sent_at INTEGER NOT NULL,
      settled_at INTEGER
    );
    CREATE INDEX gateway_calls_unsettled ON gateway_calls (workspace_id) WHERE state = 'sent';
    CREATE INDEX gateway_calls_settled_at ON gateway_calls (settled_at);
  `,
};
