import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openStore } from '../../../src/store/db.js';
import { sqliteRepositories } from '../../../src/main/repositories.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { MemoryCheckpointRepository } from '../../../src/tools/checkpoints/memory.js';
import { CheckpointBook, type CheckpointRepository } from '../../../src/tools/checkpoints/records.js';
import { planRestore } from '../../../src/tools/checkpoints/restore.js';
import { removeDir, tempDir } from '../../support/tmp.js';

/** The same rules on both repositories: the store's SQLite and the in-memory one. */
function onEachRepository(name: string, body: (repo: CheckpointRepository) => Promise<void>): void {
  describe(name, () => {
    test('in SQLite', async () => {
      const home = tempDir('berth-checkpoints-');
      const store = openStore(home);
      try {
        await body(sqliteRepositories(store.db).checkpoints);
      } finally {
        store.close();
        removeDir(home);
      }
    });
    test('in memory', () => body(new MemoryCheckpointRepository()));
  });
}

const file = (text: string) => ({ kind: 'file' as const, content: Buffer.from(text) });

onEachRepository('a content is kept once per session, however many effects need it', async (repo) => {
  const book = new CheckpointBook(repo, 's1', 1000);
  await book.before('p1', 'c1', 'a.txt', file('same'), 1);
  await book.before('p1', 'c2', 'b.txt', file('same'), 2);
  assert.equal((await repo.blobBytes('s1')), 4);
  assert.equal((await book.effects()).length, 2);
  assert.equal((await book.content((await book.effects())[0]!.priorSha256!))?.toString(), 'same');
});

onEachRepository('a call that did nothing leaves no effect, a settled one records what it left', async (repo) => {
  const book = new CheckpointBook(repo, 's1', 1000);
  const refused = await book.before('p1', 'c1', 'a.txt', { kind: 'absent' }, 1);
  await book.settle(refused, null);
  const written = await book.before('p1', 'c2', 'a.txt', { kind: 'absent' }, 2);
  await book.settle(written, { kind: 'file', sha256: 'f'.repeat(64) });
  assert.deepEqual(
    (await book.effects()).map((e) => [e.callId, e.prior, e.after, e.afterSha256]),
    [['c2', 'absent', 'file', 'f'.repeat(64)]],
  );
});

onEachRepository('past the budget the oldest content is given up, and a rewind needing it is refused with the file', async (repo) => {
  const book = new CheckpointBook(repo, 's1', 10);
  const first = await book.before('p1', 'c1', 'old.txt', file('123456'), 1);
  await book.settle(first, { kind: 'file', sha256: 'a'.repeat(64) });
  const second = await book.before('p2', 'c2', 'new.txt', file('abcdef'), 2);
  await book.settle(second, { kind: 'file', sha256: 'b'.repeat(64) });
  assert.ok((await repo.blobBytes('s1')) <= 10, 'the budget holds');
  assert.deepEqual(
    (await book.effects()).map((e) => e.prior),
    ['evicted', 'file'],
  );

  assert.equal((await planRestore(book, new Set(['p2']))).files.length, 1, 'the later turn can still be undone');
  await assert.rejects(
    planRestore(book, new Set(['p1', 'p2'])),
    (err: unknown) => err instanceof BerthError && err.code === 'checkpoint_evicted' && JSON.stringify(err.details.files) === '["old.txt"]',
  );
});

onEachRepository('a content larger than the whole budget is not kept, and rewinding past it is refused', async (repo) => {
  const book = new CheckpointBook(repo, 's1', 4);
  await book.settle(await book.before('p1', 'c1', 'big.txt', file('too large'), 1), { kind: 'file', sha256: 'c'.repeat(64) });
  assert.equal((await repo.blobBytes('s1')), 0);
  await assert.rejects(planRestore(book, new Set(['p1'])), (err: unknown) => err instanceof BerthError && err.code === 'checkpoint_unavailable');
});

onEachRepository('a file touched by several undone turns goes back to its state before the first, checked against what the last left', async (repo) => {
  const book = new CheckpointBook(repo, 's1', 1000);
  await book.settle(await book.before('p1', 'c1', 'a.txt', file('v0'), 1), { kind: 'file', sha256: '1'.repeat(64) });
  await book.settle(await book.before('p2', 'c2', 'a.txt', file('v1'), 2), { kind: 'absent' });
  const plan = await planRestore(book, new Set(['p1', 'p2']));
  assert.equal(plan.files.length, 1);
  assert.equal((await book.content(plan.files[0]!.targetSha256!))?.toString(), 'v0');
  assert.equal(plan.files[0]!.expected, 'absent');
  await book.markUndone(plan.effectIds, 'r1');
  assert.deepEqual((await planRestore(book, new Set(['p1', 'p2']))).files, [], 'undone effects are not undone twice');
});

onEachRepository('contents of undone turns are given up before older ones a rewind may still need', async (repo) => {
  const book = new CheckpointBook(repo, 's1', 12);
  await book.settle(await book.before('p1', 'c1', 'kept.txt', file('111111'), 1), { kind: 'file', sha256: '1'.repeat(64) });
  await book.settle(await book.before('p2', 'c2', 'undone.txt', file('222222'), 2), { kind: 'file', sha256: '2'.repeat(64) });
  await book.markUndone((await planRestore(book, new Set(['p2']))).effectIds, 'r1');
  await book.settle(await book.before('p3', 'c3', 'new.txt', file('333333'), 3), { kind: 'file', sha256: '3'.repeat(64) });
  assert.deepEqual(
    (await book.effects()).map((e) => [e.path, e.prior]),
    [
      ['kept.txt', 'file'],
      ['undone.txt', 'evicted'],
      ['new.txt', 'file'],
    ],
  );
});
