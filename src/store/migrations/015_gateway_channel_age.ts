import type { Migration } from '../migration.js';

/**
 * When each gateway channel row was claimed (milliseconds on the database's clock), so every node
 * of a cluster agrees which node holds a workspace's oldest live channel: that node carries all of
 * the workspace's calls, and its in-flight limit holds once for the cluster (docs/cluster-bus.md).
 * Rows from before it read 0. Only PostgreSQL stores use it, as with migration 14.
 */
export const m015GatewayChannelAge: Migration = {
  id: 15,
  name: 'gateway_channel_age',
  sql: `
    ALTER TABLE gateway_channels ADD COLUMN opened_at INTEGER NOT NULL DEFAULT 0;
  `,
};
