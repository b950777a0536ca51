import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SocketTable, procTable, type TablePages } from '../../../src/net/socket-table.js';

/** A table of `pages`, counting the pages each read hands out; `gate` holds each page until released. */
function fakeTable(pages: readonly string[], options: { gate?: boolean } = {}) {
  const stats = { opened: 0, pagesRead: 0, closed: 0 };
  const waiting: (() => void)[] = [];
  const open = async (): Promise<TablePages> => {
    stats.opened++;
    let i = 0;
    return {
      async next() {
        if (options.gate) await new Promise<void>((r) => waiting.push(r));
        if (i >= pages.length) return null;
        stats.pagesRead++;
        return pages[i++]!;
      },
      async close() {
        stats.closed++;
      },
    };
  };
  /** Lets the next held page through, once a read asks for it. */
  const step = async () => {
    while (waiting.length === 0) await new Promise((r) => setImmediate(r));
    waiting.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { open, stats, step };
}

const PAGES = ['0: A 1\n1: B 2\n', '2: C 3\n3: D 4\n', '4: E 5\n'];

describe('SocketTable', () => {
  it('stops reading once the row is found, and closes the table', async () => {
    const t = fakeTable(PAGES);
    const table = new SocketTable(t.open);
    assert.equal(await table.find(' B '), '1: B 2');
    assert.deepEqual(t.stats, { opened: 1, pagesRead: 1, closed: 1 });
  });

  it('reads to the end and answers null for a row that is not there', async () => {
    const t = fakeTable(PAGES);
    assert.equal(await new SocketTable(t.open).find(' Z '), null);
    assert.deepEqual(t.stats, { opened: 1, pagesRead: 3, closed: 1 });
  });

  it('serves lookups that arrive together with one read', async () => {
    const t = fakeTable(PAGES);
    const table = new SocketTable(t.open);
    const [d, a] = await Promise.all([table.find(' D '), table.find(' A ')]);
    assert.equal(d, '3: D 4');
    assert.equal(a, '0: A 1');
    assert.equal(t.stats.opened, 1);
    assert.equal(t.stats.pagesRead, 2);
  });

  it('looks up again from the start a lookup that joined after its row had been passed', async () => {
    const t = fakeTable(PAGES, { gate: true });
    const table = new SocketTable(t.open);
    const late = { row: undefined as string | null | undefined };
    const first = table.find(' E ');
    await t.step(); // page 1 (A, B) read
    const joined = table.find(' A ').then((row) => (late.row = row));
    await t.step(); // page 2
    await t.step(); // page 3: E found, but the joined lookup is still open
    assert.equal(await first, '4: E 5');
    assert.equal(late.row, undefined, 'not answered null by a read that started before it');
    await t.step(); // the end of the first read: the joined lookup is read for again
    await t.step(); // the second read's first page
    await joined;
    assert.equal(late.row, '0: A 1');
    assert.equal(t.stats.opened, 2);
  });

  it('answers a joined lookup from the pages after it joined, within the same read', async () => {
    const t = fakeTable(PAGES, { gate: true });
    const table = new SocketTable(t.open);
    const first = table.find(' Z ');
    await t.step();
    const joined = table.find(' D ');
    await t.step();
    assert.equal(await joined, '3: D 4');
    await t.step();
    await t.step(); // end of the table
    assert.equal(await first, null);
    assert.equal(t.stats.opened, 1);
  });

  it('joins a row split across two pages', async () => {
    const t = fakeTable(['0: A 1\n1: B', ' 2\n2: C 3\n']);
    assert.equal(await new SocketTable(t.open).find(' B '), '1: B 2');
  });

  it('rejects every waiting lookup when the table cannot be read, and reads again for the next one', async () => {
    let fail = true;
    const table = new SocketTable(async () => {
      if (fail) throw new Error('no table');
      return fakeTable(PAGES).open();
    });
    await assert.rejects(table.find(' A '), /no table/);
    fail = false;
    assert.equal(await table.find(' A '), '0: A 1');
  });

  it('reads a real file page by page (procTable)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'socket-table-'));
    const rows = Array.from({ length: 400 }, (_, i) => `${String(i).padStart(4)}: ROW${i} uid\n`).join('');
    writeFileSync(join(dir, 'tcp'), rows);
    const table = new SocketTable(procTable(join(dir, 'tcp')));
    assert.equal(await table.find(' ROW399 '), ' 399: ROW399 uid');
    assert.equal(await table.find(' ROW400 '), null);
  });
});
