import type { Migration } from '../migration.js';

/**
 * The gateway channels open across a cluster (docs/cluster-bus.md, gateway channels): one row
 * per channel, on the node that holds it, until `expires_at` (milliseconds on the database's
 * clock) — the holder renews its rows as it renews its leases, so a killed node's channels stop
 * counting once they lapse. The channel limits (docs/gateway.md) count the live rows at admission.
 * Only PostgreSQL stores use it; SQLite gets the empty table, as with `session_leases`.
 *
 * `gateway_calls.node_id` names the node that sent a journaled call, so a node starting
 * abandons only the calls its own earlier process left, never the ones another node has in flight.
 */
export const m014GatewayChannels: Migration = {
  id: 14,
  name: 'gateway_channels',
  sql: `
    CREATE TABLE gateway_channels (
      claim_id TEXT PRIMARY KEY,
      node_id TEXT NOT NULL,
      workspace_id TEXT NOT NULL,
      token_id TEXT NOT NULL,
      expires_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX gateway_channels_node ON gateway_channels (node_id);
    ALTER TABLE gateway_calls ADD COLUMN node_id TEXT;
  `,
};
