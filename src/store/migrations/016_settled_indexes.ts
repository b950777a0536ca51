import type { Migration } from '../migration.js';

/**
 * The indexes by finishing time of receipts and of B's gateway call journal hold only the rows
 * that have finished. Their one use is pruning what finished before a time, which never asks for
 * a row still running; indexed whole, every `executing` receipt and every `sent` call added an
 * entry on its way in, one more page written in the commit that comes before an effect (or before
 * a call's frame leaves) and one more to move when it settles.
 */
export const m016SettledIndexes: Migration = {
  id: 16,
  name: 'settled_indexes',
  sql: `
    DROP INDEX receipts_finished_at;
    CREATE INDEX receipts_finished_at ON receipts (finished_at) WHERE finished_at IS NOT NULL;
    DROP INDEX gateway_calls_settled_at;
    CREATE INDEX gateway_calls_settled_at ON gateway_calls (settled_at) WHERE settled_at IS NOT NULL;
  `,
};
