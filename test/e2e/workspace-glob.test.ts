import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';

const q = encodeURIComponent;

describe('GET /glob', () => {
  let d: TestDaemon;
  const glob = (query: string) => d.json('GET', `/glob?${query}`);
  before(async () => {
    d = await startTestDaemon({
      files: {
        '.gitignore': 'node_modules/\n*.log\nbuild/\n',
        '.berthignore': 'private/\n',
        'README.md': '',
        '.env.example': '',
        'a.txt': '',
        'debug.log': '',
        'build/out.js': '',
        'node_modules/dep/index.js': '',
        'private/notes.txt': '',
        'src/index.ts': '',
        'src/util.ts': '',
        'src/nested/deep.txt': '',
        'src/nested/deeper/x.ts': '',
        'pkg/.gitignore': 'gen/\n!important.log\n',
        'pkg/gen/types.ts': '',
        'pkg/important.log': '',
        'pkg/lib.ts': '',
        '.git/config': '',
      },
    });
  });
  after(() => d.close());

  it('answers every WorkspaceGlob field with workspace-relative matches', async () => {
    const r = await glob(`pattern=${q('**/*.txt')}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const { durationMs, ...rest } = r.body;
    assert.deepEqual(rest, {
      kind: 'glob',
      pattern: '**/*.txt',
      cwd: '',
      matches: ['a.txt', 'src/nested/deep.txt'],
      count: 2,
      truncated: false,
    });
    assert.ok(Number.isInteger(durationMs) && durationMs >= 0);
  });

  it('hides ignored paths by default: root, nested and .berthignore rules, negations honoured', async () => {
    const r = await glob(`pattern=${q('**/*')}`);
    const m = r.body.matches as string[];
    for (const hidden of ['debug.log', 'build', 'build/out.js', 'node_modules', 'private', 'pkg/gen', 'pkg/gen/types.ts']) {
      assert.ok(!m.includes(hidden), hidden);
    }
    for (const shown of ['README.md', '.env.example', '.gitignore', 'src', 'src/nested/deeper/x.ts', 'pkg/important.log', 'pkg/lib.ts']) {
      assert.ok(m.includes(shown), shown);
    }
    assert.ok(!m.some((p) => p === '.git' || p.startsWith('.git/')));
  });

  it('includes ignored paths with includeIgnored, but never .git', async () => {
    for (const flag of ['1', 'true']) {
      const r = await glob(`pattern=${q('**/*')}&includeIgnored=${flag}`);
      const m = r.body.matches as string[];
      for (const p of ['debug.log', 'build/out.js', 'node_modules/dep/index.js', 'private/notes.txt', 'pkg/gen/types.ts']) {
        assert.ok(m.includes(p), `${p} with includeIgnored=${flag}`);
      }
      assert.ok(!m.some((p) => p === '.git' || p.startsWith('.git/')));
    }
  });

  it('orders matches breadth-first and by name', async () => {
    const r = await glob(`pattern=${q('**/*.ts')}`);
    assert.deepEqual(r.body.matches, ['pkg/lib.ts', 'src/index.ts', 'src/util.ts', 'src/nested/deeper/x.ts']);
  });

  it('cuts at maxResults and says truncated only when more matches exist', async () => {
    const all = (await glob(`pattern=${q('**/*.ts')}`)).body.matches as string[];
    const cut = await glob(`pattern=${q('**/*.ts')}&maxResults=2`);
    assert.deepEqual(cut.body.matches, all.slice(0, 2));
    assert.equal(cut.body.count, 2);
    assert.equal(cut.body.truncated, true);
    const exact = await glob(`pattern=${q('**/*.ts')}&maxResults=${all.length}`);
    assert.equal(exact.body.truncated, false);
    assert.equal(exact.body.count, all.length);
  });

  it('resolves cwd like a path and still answers workspace-relative paths', async () => {
    const r = await glob(`pattern=${q('**/*')}&cwd=src`);
    assert.equal(r.body.cwd, 'src');
    assert.deepEqual(r.body.matches, ['src/index.ts', 'src/nested', 'src/util.ts', 'src/nested/deep.txt', 'src/nested/deeper', 'src/nested/deeper/x.ts']);
    const abs = await glob(`pattern=*.ts&cwd=${q(join(d.workspace, 'src'))}`);
    assert.deepEqual(abs.body.matches, ['src/index.ts', 'src/util.ts']);
    const ignoredCwd = await glob(`pattern=*&cwd=build`);
    assert.deepEqual(ignoredCwd.body.matches, []);
    const ignoredCwdShown = await glob(`pattern=*&cwd=build&includeIgnored=1`);
    assert.deepEqual(ignoredCwdShown.body.matches, ['build/out.js']);
  });

  it('answers 404 for a missing cwd and 400 for a cwd that is a file or empty', async () => {
    const missing = await glob('pattern=*&cwd=nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.errorKind, 'path_not_found');
    for (const cwd of ['README.md', '']) {
      const r = await glob(`pattern=*&cwd=${cwd}`);
      assert.equal(r.status, 400, cwd);
      assert.equal(r.body.errorKind, 'parse_error');
    }
  });

  it('matches only as deep as the pattern reaches', async () => {
    assert.deepEqual((await glob('pattern=src%2F*.ts')).body.matches, ['src/index.ts', 'src/util.ts']);
    assert.deepEqual((await glob('pattern=*%2F*.ts')).body.matches, ['pkg/lib.ts', 'src/index.ts', 'src/util.ts']);
    assert.deepEqual((await glob('pattern=src%2Fnested%2Fdeep.txt')).body.matches, ['src/nested/deep.txt']);
    assert.deepEqual((await glob(`pattern=${q('{src,pkg}/*.ts')}`)).body.matches, ['pkg/lib.ts', 'src/index.ts', 'src/util.ts']);
    const sub = (await glob(`pattern=${q('src/nested/**')}`)).body.matches;
    assert.deepEqual(sub, ['src/nested', 'src/nested/deep.txt', 'src/nested/deeper', 'src/nested/deeper/x.ts']);
  });

  it('refuses a missing pattern and out-of-range maxResults with 400 parse_error', async () => {
    for (const query of ['', 'pattern=', 'pattern=*&maxResults=0', 'pattern=*&maxResults=50001', 'pattern=*&maxResults=5x', `pattern=${'a'.repeat(4097)}`]) {
      const r = await glob(query);
      assert.equal(r.status, 400, query.slice(0, 40));
      assert.equal(r.body.errorKind, 'parse_error');
    }
    assert.equal((await glob('pattern=*&maxResults=50000')).status, 200);
  });

  it('sees a new nested ignore file on the next request', async () => {
    writeFileSync(join(d.workspace, 'src/nested/.gitignore'), 'deeper/\n');
    const r = await glob(`pattern=${q('**/*.ts')}`);
    assert.ok(!(r.body.matches as string[]).includes('src/nested/deeper/x.ts'));
  });
});
