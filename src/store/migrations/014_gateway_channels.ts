import type { Migration } from '../migration.js';

/**
 * The gateway channels open across a cluster (docs/cluster-bus.md, gateway channels): one row
 * per channel, on the node that holds it, until `expires_at` (milliseconds on the database's
 * clock) — the holder renews its rows as it renews its leases, so a killed node's channels stop
 * counting once they lapse. The channel limits (docs/gateway.md) count the live rows at admission.
 * Only PostgreSQL stores use it; SQLite gets the empty table, as with `session_leases`.
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
  `,
};
