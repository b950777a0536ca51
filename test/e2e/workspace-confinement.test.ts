import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { rawGet } from '../support/http.js';
import { removeDir, tempDir, writeTree } from '../support/tmp.js';
import { makeLinks, makeOutside, readsFiles, startUnprivilegedDaemon, unprivilegedSkip } from './workspace-reads.fixture.js';

const q = encodeURIComponent;

/** The same path through every route that takes one (glob takes it as `cwd`). */
const routesFor = (path: string): string[] => [
  `/file?path=${q(path)}`,
  `/file/bytes?path=${q(path)}`,
  `/stat?path=${q(path)}`,
  `/list?path=${q(path)}`,
  `/glob?pattern=*&cwd=${q(path)}`,
];

describe('workspace reads stay inside the workspace', () => {
  let d: TestDaemon;
  let outside: string;
  before(async () => {
    outside = makeOutside();
    d = await startTestDaemon({ files: readsFiles() });
    makeLinks(d.workspace, outside);
  });
  after(async () => {
    await d.close();
    removeDir(outside);
  });

  async function expectRefusal(paths: readonly string[], status: number, kind: string): Promise<void> {
    for (const p of paths) {
      const r = await d.json('GET', p);
      assert.equal(r.status, status, `${p} → ${JSON.stringify(r.body)}`);
      assert.equal(r.body.errorKind, kind, p);
      assert.ok(!JSON.stringify(r.body).includes('top secret'), p);
    }
  }

  it('refuses `..`, absolute paths outside and /etc/passwd on every route with path_outside_workspace', async () => {
    const paths = ['../outside/secret.txt', join(outside, 'secret.txt'), '/etc/passwd', 'src/../../x', '..', outside];
    await expectRefusal(paths.flatMap(routesFor), 400, 'path_outside_workspace');
  });

  it('decodes a percent-encoded `..` once and still refuses it; a double-encoded one is just a name', async () => {
    for (const route of ['/file', '/stat', '/list', '/file/bytes']) {
      const once = await rawGet(d.url, `${route}?path=%2E%2E%2F%2E%2E%2Fetc%2Fpasswd`, {});
      assert.equal(once.status, 400, route);
      assert.equal(JSON.parse(once.body).errorKind, 'path_outside_workspace');
      const twice = await rawGet(d.url, `${route}?path=%252E%252E%252Fetc%252Fpasswd`, {});
      assert.equal(twice.status, 404, route);
    }
  });

  it('refuses a NUL in a path', async () => {
    await expectRefusal([`/file?path=a%00b`, `/stat?path=a%00b`], 400, 'path_outside_workspace');
  });

  it('accepts an absolute path inside the workspace and answers with the relative path', async () => {
    const r = await d.json('GET', `/file?path=${q(join(d.workspace, 'src/index.ts'))}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.path, 'src/index.ts');
    const root = await d.json('GET', `/stat?path=${q(d.workspace)}`);
    assert.equal(root.body.path, '.');
  });

  it('refuses a link to a file outside with symlink_escape', async () => {
    await expectRefusal(['/file?path=link-out-file', '/file/bytes?path=link-out-file', '/stat?path=link-out-file'], 400, 'symlink_escape');
  });

  it('refuses a link to a directory outside, and paths through it, with symlink_escape', async () => {
    await expectRefusal(
      [...routesFor('link-out-dir'), '/file?path=link-out-dir%2Fsecret.txt', '/stat?path=link-out-dir%2Fnew.txt'],
      400,
      'symlink_escape',
    );
  });

  it('refuses a dangling link and a link loop with symlink_escape', async () => {
    await expectRefusal([...routesFor('dangling'), ...routesFor('loop-a'), '/file?path=loop-a%2Fx'], 400, 'symlink_escape');
  });

  it('follows links that stay inside and names the target in the answer', async () => {
    const f = await d.json('GET', '/file?path=link-in');
    assert.equal(f.status, 200);
    assert.equal(f.body.path, 'src/index.ts');
    assert.equal(f.body.content, 'export const answer = 42;\n');
    const b = await d.json('GET', '/file/bytes?path=link-in');
    assert.equal(b.body.path, 'src/index.ts');
    const s = await d.json('GET', '/stat?path=dir-in');
    assert.deepEqual([s.body.path, s.body.type], ['src', 'directory']);
    const l = await d.json('GET', '/list?path=dir-in');
    assert.equal(l.body.path, 'src');
    assert.ok(l.body.entries.some((e: { name: string }) => e.name === 'index.ts'));
    const g = await d.json('GET', '/glob?pattern=*.ts&cwd=dir-in');
    assert.deepEqual(g.body.matches, ['src/index.ts']);
    assert.equal(g.body.cwd, 'dir-in');
  });

  it('lists links as symlink entries without resolving them', async () => {
    const r = await d.json('GET', '/list?path=.');
    const kinds = Object.fromEntries(r.body.entries.map((e: { name: string; kind: string }) => [e.name, e.kind]));
    for (const name of ['link-out-file', 'link-out-dir', 'dangling', 'loop-a', 'link-in', 'dir-in']) {
      assert.equal(kinds[name], 'symlink', name);
    }
  });

  it('never follows a link during a glob, so no match lies behind one', async () => {
    const r = await d.json('GET', '/glob?pattern=**%2F*&includeIgnored=1');
    assert.equal(r.status, 200);
    assert.ok(r.body.matches.includes('link-out-dir'), 'the link itself is a name in the workspace');
    for (const m of r.body.matches as string[]) {
      assert.ok(!m.startsWith('link-out-dir/') && !m.startsWith('dir-in/') && !m.startsWith('loop-a/'), m);
    }
    const through = await d.json('GET', '/glob?pattern=link-out-dir%2F*');
    assert.deepEqual(through.body.matches, []);
  });

  it('refuses glob patterns that climb out or are absolute with parse_error', async () => {
    const patterns = ['../**/*', 'src/../../*', '/etc/*', 'C:/x/*', '\\\\server\\share\\*', '..\\x'];
    await expectRefusal(patterns.map((p) => `/glob?pattern=${q(p)}`), 400, 'parse_error');
  });

  it('refuses a name over 255 bytes with 400 name_too_long, not retryable, before the file system sees it', async () => {
    // 'é' is two bytes: 128 of them are 256 bytes in 128 characters.
    for (const long of ['n'.repeat(300), `dir-in/${'\u00e9'.repeat(128)}`]) {
      for (const path of routesFor(long)) {
        const r = await d.json('GET', path);
        assert.equal(r.status, 400, path);
        assert.equal(r.body.code, 'name_too_long', path);
        assert.equal(r.body.retryable, false);
      }
    }
    const atLimit = await d.json('GET', `/stat?path=${q('n'.repeat(255))}`);
    assert.equal(atLimit.status, 404, 'a 255-byte name is a valid name that is not there');
  });
});

describe('workspace reads the daemon may not open', { skip: unprivilegedSkip }, () => {
  let workspace: string;
  let daemon: { url: string; stop(): Promise<void> };
  before(async () => {
    workspace = tempDir('berth-ws-denied-');
    writeTree(workspace, { 'open.txt': 'fine\n', 'locked.txt': 'no\n', 'locked-dir/inner.txt': 'no\n' });
    mkdirSync(join(workspace, 'empty-dir'));
    writeFileSync(join(workspace, 'locked-dir/.keep'), '');
    daemon = await startUnprivilegedDaemon(workspace, ['locked.txt', 'locked-dir']);
  });
  after(async () => {
    await daemon.stop();
    removeDir(workspace);
  });

  it('answers 403 permission_denied on every route when the OS refuses access', async () => {
    const paths = [
      '/file?path=locked.txt',
      '/file/bytes?path=locked.txt',
      '/stat?path=locked-dir%2Finner.txt',
      '/list?path=locked-dir',
      '/glob?pattern=*&cwd=locked-dir%2Finner',
    ];
    for (const p of paths) {
      const res = await fetch(daemon.url + p);
      const body = (await res.json()) as { errorKind?: string };
      assert.equal(res.status, 403, `${p} → ${JSON.stringify(body)}`);
      assert.equal(body.errorKind, 'permission_denied', p);
    }
    const ok = await fetch(`${daemon.url}/file?path=open.txt`);
    assert.equal(ok.status, 200);
  });
});
