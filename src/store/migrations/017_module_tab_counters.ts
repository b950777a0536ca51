import type { Migration } from '../migration.js';

/**
 * Each workspace's last tab number, kept apart from the tabs themselves. The next number was
 * MAX(tab) + 1 over the workspace's tabs, which gives the number of a deleted session (its tab
 * row goes with it) to the next one: a message addressed to that number then reaches another
 * session, which migration 6 rules out. A counter never goes back. On PostgreSQL it is also
 * cheaper: the counter's row lock orders two nodes' creates in one workspace, where a table
 * lock stopped every create. Seeded from the tabs given so far.
 */
export const m017ModuleTabCounters: Migration = {
  id: 17,
  name: 'module_tab_counters',
  sql: `
    CREATE TABLE module_tab_counters (
      workspace_id TEXT PRIMARY KEY,
      last_tab INTEGER NOT NULL
    );
    INSERT INTO module_tab_counters (workspace_id, last_tab)
      SELECT workspace_id, MAX(tab) FROM module_tabs GROUP BY workspace_id;
  `,
};
