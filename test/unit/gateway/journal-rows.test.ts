import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { JournalRows, type Delay } from '../../../src/gateway/host/journal-rows.js';
import { GATEWAY_JOURNAL_ROWS_MAX } from '../../../src/gateway/limits.js';
import { silentLogger } from '../../../src/log.js';
import { SqliteGatewayCallRepository } from '../../../src/store/repos/gateway-calls.js';
import { WriteChain } from '../../../src/write-chain.js';
import { tempStore } from '../../support/tools.js';

/** The journal rows that open and close calls, written together: a real SQLite journal, a delay the test runs by hand. */
describe('JournalRows', () => {
  let store: ReturnType<typeof tempStore>;
  let journal: SqliteGatewayCallRepository;
  let batches: number;
  let due: Array<() => void>;
  const heldDelay: Delay = (run) => {
    due.push(run);
    return { cancel: () => (due = due.filter((r) => r !== run)) };
  };
  const start = (id: string) => ({ id, workspaceId: 'w', sessionId: 's', tool: 'workspace_write', args: '{}', tokenId: 't', sentAt: 1 });
  const sent = (id: string) => journal.insert(start(id));

  beforeEach(() => {
    store = tempStore();
    journal = new SqliteGatewayCallRepository(store.store.db);
    batches = 0;
    due = [];
    const writeRows = journal.writeRows.bind(journal);
    journal.writeRows = (starts, answers) => (batches++, writeRows(starts, answers));
  });
  afterEach(() => store.close());

  test('rows answered within one delay are written in one batch once it is due, not before', async () => {
    const writes = new WriteChain(silentLogger(), {});
    const rows = new JournalRows(journal, writes, heldDelay);
    for (const id of ['a', 'b', 'c']) await sent(id);
    for (const id of ['a', 'b', 'c']) rows.answered({ id, result: `r-${id}`, at: 5 });
    await writes.flush();
    assert.equal((await journal.find('a'))?.state, 'sent', 'nothing is written before the delay ends');
    assert.equal(due.length, 1, 'one delay for the whole batch');
    due[0]!();
    await writes.flush();
    assert.equal(batches, 1);
    for (const id of ['a', 'b', 'c']) assert.equal((await journal.find(id))?.result, `r-${id}`);
    assert.equal((await journal.find('c'))?.state, 'answered');
  });

  test('flush() writes the waiting rows at once and cancels the delay', async () => {
    const writes = new WriteChain(silentLogger(), {});
    const rows = new JournalRows(journal, writes, heldDelay);
    await sent('a');
    rows.answered({ id: 'a', result: 'r', at: 5 });
    rows.flush();
    await writes.flush();
    assert.equal((await journal.find('a'))?.state, 'answered');
    assert.equal(due.length, 0);
    rows.flush();
    await writes.flush();
    assert.equal(batches, 1, 'nothing waiting: no empty batch');
  });

  test('a full batch is written without waiting for the delay', async () => {
    const writes = new WriteChain(silentLogger(), {});
    const rows = new JournalRows(journal, writes, heldDelay);
    for (let i = 0; i < GATEWAY_JOURNAL_ROWS_MAX; i++) rows.answered({ id: `c${i}`, result: 'r', at: 5 });
    await writes.flush();
    assert.equal(batches, 1);
    assert.equal(due.length, 0);
  });

  test('a late answer to an abandoned call in a batch is kept beside it, as a single answer would', async () => {
    const writes = new WriteChain(silentLogger(), {});
    const rows = new JournalRows(journal, writes, heldDelay);
    await sent('gone');
    await journal.abandon('gone', 3);
    await sent('ok');
    rows.answered({ id: 'gone', result: 'late', at: 5 });
    rows.answered({ id: 'ok', result: 'fine', at: 5 });
    rows.flush();
    await writes.flush();
    assert.deepEqual([(await journal.find('gone'))?.state, (await journal.find('gone'))?.result], ['abandoned', 'late']);
    assert.deepEqual([(await journal.find('ok'))?.state, (await journal.find('ok'))?.result], ['answered', 'fine']);
  });

  test('sent rows join the batch and are written before the answers that close them, all in one write', async () => {
    const writes = new WriteChain(silentLogger(), {});
    const rows = new JournalRows(journal, writes, heldDelay);
    rows.sent(start('a'));
    rows.sent(start('b'));
    rows.answered({ id: 'a', result: 'r-a', at: 5 });
    await writes.flush();
    assert.equal(await journal.find('a'), undefined, 'nothing is written before the delay ends');
    assert.equal(due.length, 1, 'one delay for sent and answered rows alike');
    due[0]!();
    await writes.flush();
    assert.equal(batches, 1);
    assert.deepEqual([(await journal.find('a'))?.state, (await journal.find('a'))?.result], ['answered', 'r-a']);
    assert.equal((await journal.find('b'))?.state, 'sent');
  });

  test('a write submitted after flush() finds the rows flushed before it', async () => {
    const writes = new WriteChain(silentLogger(), {});
    const rows = new JournalRows(journal, writes, heldDelay);
    rows.sent(start('a'));
    rows.flush();
    writes.submit('abandon', () => journal.abandon('a', 7));
    await writes.flush();
    assert.equal((await journal.find('a'))?.state, 'abandoned');
  });
});
