import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { BLOB, readsFiles, writeFile } from './workspace-reads.fixture.js';

const sha = (data: Buffer): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;
type Entry = { name: string; kind: string; ignored: boolean };
const names = (entries: Entry[]): string[] => entries.map((e) => e.name).sort();

describe('GET /file/bytes, /stat and /list', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({
      files: {
        ...readsFiles(),
        'pkg/.gitignore': '*.tmp\n!keep.tmp\n',
        'pkg/a.tmp': '',
        'pkg/keep.tmp': '',
        'pkg/main.ts': '',
        '.berthignore': 'secrets/\n',
        'secrets/key.pem': 'k',
        'hundred-k.bin': Buffer.alloc(100_000, 7),
      },
    });
    spawnSync('mkfifo', [join(d.workspace, 'pipe')]);
  });
  after(() => d.close());

  describe('GET /file/bytes', () => {
    it('returns a whole file as base64 with its hash', async () => {
      const r = await d.json('GET', '/file/bytes?path=blob.bin');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        kind: 'file_bytes',
        path: 'blob.bin',
        offset: 0,
        sizeBytes: 64,
        returnedBytes: 64,
        truncated: false,
        contentBase64: BLOB.toString('base64'),
        hash: sha(BLOB),
      });
      assert.equal(r.headers.get('cache-control'), 'no-store');
    });

    it('returns an offset window without a hash', async () => {
      const r = await d.json('GET', '/file/bytes?path=blob.bin&offset=8&maxBytes=8');
      assert.deepEqual(
        [r.body.offset, r.body.returnedBytes, r.body.truncated, r.body.hash],
        [8, 8, true, undefined],
      );
      assert.deepEqual(Buffer.from(r.body.contentBase64, 'base64'), BLOB.subarray(8, 16));
    });

    it('returns no bytes for an offset past the end', async () => {
      const r = await d.json('GET', '/file/bytes?path=blob.bin&offset=1000');
      assert.equal(r.status, 200);
      assert.deepEqual([r.body.returnedBytes, r.body.contentBase64, r.body.truncated, r.body.sizeBytes], [0, '', true, 64]);
    });

    it('defaults to a 64 KiB window and reads text files too', async () => {
      const r = await d.json('GET', '/file/bytes?path=hundred-k.bin');
      assert.equal(r.body.returnedBytes, 65_536);
      assert.equal(r.body.truncated, true);
      const text = await d.json('GET', '/file/bytes?path=README.md');
      assert.equal(Buffer.from(text.body.contentBase64, 'base64').toString(), '# Fixture\n\nhello world\nsecond line\n');
      const empty = await d.json('GET', '/file/bytes?path=empty.txt');
      assert.deepEqual([empty.body.returnedBytes, empty.body.truncated, empty.body.hash], [0, false, sha(Buffer.alloc(0))]);
    });

    it('refuses bad windows, directories and FIFOs with 400 and missing files with 404', async () => {
      for (const query of ['offset=-1', 'offset=1.5', 'maxBytes=0', 'maxBytes=262145', 'offset=x']) {
        const r = await d.json('GET', `/file/bytes?path=blob.bin&${query}`);
        assert.equal(r.status, 400, query);
        assert.equal(r.body.errorKind, 'parse_error');
      }
      for (const path of ['src', 'pipe', '']) {
        const r = await d.json('GET', `/file/bytes?path=${path}`);
        assert.equal(r.status, 400, path);
        assert.equal(r.body.errorKind, 'parse_error');
      }
      const missing = await d.json('GET', '/file/bytes?path=missing.bin');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.errorKind, 'path_not_found');
    });
  });

  describe('GET /stat', () => {
    it('describes files, directories and the root with an integer modifiedMs', async () => {
      const file = await d.json('GET', '/stat?path=README.md');
      const onDisk = statSync(join(d.workspace, 'README.md'));
      assert.deepEqual(file.body, {
        kind: 'stat',
        path: 'README.md',
        type: 'file',
        sizeBytes: 35,
        modifiedMs: Math.trunc(onDisk.mtimeMs),
      });
      assert.ok(Number.isInteger(file.body.modifiedMs));
      const dir = await d.json('GET', '/stat?path=src');
      assert.deepEqual([dir.body.path, dir.body.type], ['src', 'directory']);
      const root = await d.json('GET', '/stat?path=.');
      assert.deepEqual([root.body.path, root.body.type], ['.', 'directory']);
    });

    it('calls a FIFO other and stats ignored paths like any other', async () => {
      assert.equal((await d.json('GET', '/stat?path=pipe')).body.type, 'other');
      assert.equal((await d.json('GET', '/stat?path=debug.log')).status, 200);
    });

    it('answers 404 for a missing path and 400 without one', async () => {
      const missing = await d.json('GET', '/stat?path=missing');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.errorKind, 'path_not_found');
      const none = await d.json('GET', '/stat');
      assert.equal(none.status, 400);
      assert.equal(none.body.errorKind, 'parse_error');
    });
  });

  describe('GET /list', () => {
    it('lists the root without ignored entries or .git', async () => {
      const r = await d.json('GET', '/list?path=.');
      assert.equal(r.status, 200);
      assert.equal(r.body.kind, 'list');
      assert.equal(r.body.path, '.');
      assert.equal(r.body.truncated, false);
      assert.equal(r.body.matchedIgnore, null);
      const listed = names(r.body.entries);
      for (const hidden of ['.git', 'debug.log', 'build', 'secrets']) assert.ok(!listed.includes(hidden), hidden);
      for (const shown of ['.gitignore', 'README.md', 'src', 'pkg']) assert.ok(listed.includes(shown), shown);
      assert.ok(r.body.entries.every((e: Entry) => e.ignored === false));
    });

    it('shows ignored entries flagged when includeIgnored is 1 or true, and only then', async () => {
      for (const flag of ['1', 'true']) {
        const r = await d.json('GET', `/list?path=.&includeIgnored=${flag}`);
        const byName = Object.fromEntries(r.body.entries.map((e: Entry) => [e.name, e]));
        assert.deepEqual(byName['.git'], { name: '.git', kind: 'directory', ignored: true });
        assert.deepEqual(byName['debug.log'], { name: 'debug.log', kind: 'file', ignored: true });
        assert.equal(byName.build.ignored, true);
        assert.equal(byName.secrets.ignored, true, '.berthignore counts');
        assert.equal(byName['README.md'].ignored, false);
      }
      for (const flag of ['yes', '0', 'false', 'TRUE']) {
        const r = await d.json('GET', `/list?path=.&includeIgnored=${flag}`);
        assert.ok(!names(r.body.entries).includes('debug.log'), flag);
      }
    });

    it('applies a nested .gitignore to its own directory, negations included', async () => {
      const r = await d.json('GET', '/list?path=pkg&includeIgnored=1');
      const ignored = Object.fromEntries(r.body.entries.map((e: Entry) => [e.name, e.ignored]));
      assert.deepEqual(ignored, { '.gitignore': false, 'a.tmp': true, 'keep.tmp': false, 'main.ts': false });
    });

    it('treats everything inside an ignored directory as ignored', async () => {
      const hidden = await d.json('GET', '/list?path=build');
      assert.deepEqual(hidden.body.entries, []);
      const shown = await d.json('GET', '/list?path=build&includeIgnored=true');
      assert.deepEqual(shown.body.entries, [{ name: 'out.js', kind: 'file', ignored: true }]);
    });

    it('reports entry kinds without resolving them', async () => {
      const r = await d.json('GET', '/list?path=.');
      const kinds = Object.fromEntries(r.body.entries.map((e: Entry) => [e.name, e.kind]));
      assert.deepEqual([kinds['README.md'], kinds.src, kinds.pipe], ['file', 'directory', 'other']);
    });

    it('returns at most 2000 entries and says truncated', async () => {
      for (let i = 0; i < 2001; i++) writeFile(d.workspace, `many/f${i}.txt`, '');
      const r = await d.json('GET', '/list?path=many');
      assert.equal(r.body.entries.length, 2000);
      assert.equal(r.body.truncated, true);
    });

    it('lists every entry of a directory around the size read inline, whichever way it is read', async () => {
      // Short names keep 300 entries inside one 4 KiB block on ext4: a directory that looks small
      // by its size but has more entries than are read inline, so the read starts over on the pool.
      const sizes = { 'n255': 255, 'n256': 256, 'n257': 257, 'n300': 300 };
      for (const [dir, count] of Object.entries(sizes)) {
        const expected: string[] = [];
        for (let i = 0; i < count; i++) {
          writeFile(d.workspace, `${dir}/${i.toString(36)}`, '');
          expected.push(i.toString(36));
        }
        const r = await d.json('GET', `/list?path=${dir}`);
        assert.equal(r.status, 200);
        assert.deepEqual(names(r.body.entries), expected.sort(), `${dir} is ${statSync(join(d.workspace, dir)).size} bytes`);
        assert.equal(r.body.truncated, false);
      }
    });

    it('refuses a file with 400 parse_error and a missing path with 404', async () => {
      const file = await d.json('GET', '/list?path=README.md');
      assert.equal(file.status, 400);
      assert.equal(file.body.errorKind, 'parse_error');
      const missing = await d.json('GET', '/list?path=missing');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.errorKind, 'path_not_found');
      const none = await d.json('GET', '/list');
      assert.equal(none.status, 400);
    });

    it('sees an ignore rule change on the next request', async () => {
      writeFileSync(join(d.workspace, 'pkg/.gitignore'), 'main.ts\n');
      const r = await d.json('GET', '/list?path=pkg');
      assert.deepEqual(names(r.body.entries), ['.gitignore', 'a.tmp', 'keep.tmp']);
    });
  });
});
