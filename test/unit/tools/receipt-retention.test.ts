import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RECEIPT_RETENTION_MS } from '../../../src/tools/limits.js';
import { openStore } from '../../../src/store/db.js';
import { SqliteReceiptRepository } from '../../../src/store/repos/receipts.js';
import { openReceiptJournal } from '../../../src/tools/receipt-journal.js';
import { removeDir, tempDir } from '../../support/tmp.js';
import { sqliteRepositories } from '../../../src/main/repositories.js';

test('opening the journal prunes old completed receipts but never an uncertain one', async () => {
  const home = tempDir('berth-receipts-');
  const store = openStore(home);
  try {
    const repo = new SqliteReceiptRepository(store.db);
    const now = 10 * RECEIPT_RETENTION_MS;
    const old = now - RECEIPT_RETENTION_MS - 1;
    const start = (callId: string, at: number) => ({ namespace: 'n', callId, toolName: 't', argsDigest: 'd', startedAt: at });
    const ok = { ok: true as const, result: { value: 1 } };
    await repo.begin(start('old-done', old));
    await repo.complete('n', 'old-done', ok, old);
    await repo.begin(start('old-uncertain', old));
    await repo.begin(start('recent-done', now - 1000));
    await repo.complete('n', 'recent-done', ok, now - 1000);

    const journal = await openReceiptJournal(sqliteRepositories(store.db).receipts, now);
    assert.equal((await journal.find('n', 'old-done')), undefined);
    assert.equal((await journal.find('n', 'old-uncertain'))?.status, 'executing');
    assert.equal((await journal.find('n', 'recent-done'))?.status, 'completed');
  } finally {
    store.close();
    removeDir(home);
  }
});
