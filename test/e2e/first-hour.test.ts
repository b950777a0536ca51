import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { askModule } from '../../src/modules/index.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { openTab } from '../support/module.js';
import { removeDir, tempDir } from '../support/tmp.js';

/** Issue 11 on a real daemon over HTTP: what a newcomer meets first, and what each refusal tells them to do. */

describe('/ says what answers there and where to go', () => {
  let d: TestDaemon;
  let noWeb: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ config: { modelServices: [] } });
    noWeb = await startTestDaemon({ config: { modelServices: [], web: false } });
  });
  after(async () => {
    await d.close();
    await noWeb.close();
  });

  it('answers a client with JSON naming the daemon, its routes and where to read on, instead of 404', async () => {
    const r = await d.json('GET', '/');
    assert.equal(r.status, 200);
    assert.equal(r.body.name, 'berth');
    assert.match(r.body.what, /client API/);
    // `npm ci` builds the web app (issue 13), so a browser gets it at `/`; a script still gets these facts.
    assert.match(r.body.web, /The web app answers a browser at this address/);
    assert.ok('/health' in r.body.routes && '/capabilities' in r.body.routes);
    // Other unknown paths are still unknown.
    assert.equal((await d.json('GET', '/nothing-here')).status, 404);
  });

  it('answers a browser with the web app under a strict Content-Security-Policy, without a token', async () => {
    const res = await fetch(`${d.url}/`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    const html = await res.text();
    const script = /<script (?:async )?type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(html);
    assert.ok(script, 'the page loads its bundle from this origin');
    assert.doesNotMatch(html, /https?:\/\//, 'nothing is fetched from another origin');
    const asset = await fetch(`${d.url}${script[1]}`);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type') ?? '', /javascript/);
    assert.equal((await fetch(`${d.url}/assets/nothing.js`)).status, 404);
  });

  it('with --no-web a browser still gets the small page that runs nothing', async () => {
    const res = await noWeb.fetch('/', { headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.equal(res.headers.get('content-security-policy'), "default-src 'none'");
    const html = await res.text();
    assert.match(html, /<h1>Berth /);
    assert.doesNotMatch(html, /<script/i);
    assert.equal((await noWeb.fetch('/assets/index.js')).status, 404);
  });

  it('with --no-web says the web app is turned off and keeps the page', async () => {
    const r = await noWeb.json('GET', '/');
    assert.equal(r.status, 200);
    assert.match(r.body.web, /turned off \(--no-web\)/);
  });
});

describe('serving more than one project', () => {
  let root: string;
  let d: TestDaemon;
  let plain: TestDaemon;
  before(async () => {
    root = realpathSync(tempDir('berth-projects-'));
    mkdirSync(join(root, 'app'));
    writeFileSync(join(root, 'notes.txt'), 'not a directory\n');
    d = await startTestDaemon({ config: { modelServices: [], allowWorkspaceRoots: [root] } });
    plain = await startTestDaemon({ config: { modelServices: [] } });
  });
  after(async () => {
    await d.close();
    await plain.close();
    removeDir(root);
  });

  it('without --allow-workspace-root refuses another directory, and the refusal names both flags that would serve it', async () => {
    const r = await plain.json('POST', '/session', { cwd: join(root, 'app') });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'workspace_mismatch');
    assert.match(r.body.error, /--workspace DIR \(repeatable\)/);
    assert.match(r.body.error, /--allow-workspace-root DIR/);
  });

  it('with --allow-workspace-root registers a directory under the root on first use, once', async () => {
    const first = await d.json('POST', '/session', { cwd: join(root, 'app'), sessionScope: 'thread' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.workspaceCwd, join(root, 'app'));
    const again = await d.json('POST', '/session', { cwd: join(root, 'app'), sessionScope: 'thread' });
    assert.equal(again.body.workspaceCwd, join(root, 'app'));
    const caps = await d.json('GET', '/capabilities');
    assert.equal(caps.body.workspaces.filter((w: any) => w.cwd === join(root, 'app')).length, 1);
    assert.ok(caps.body.features.includes('multi_workspace_sessions'));
  });

  it('still refuses a directory outside every allowed root, a file, and a link that leads out', async () => {
    const outside = realpathSync(tempDir('berth-outside-'));
    try {
      symlinkSync(outside, join(root, 'escape'));
      for (const cwd of [outside, join(root, 'notes.txt'), join(root, 'escape'), join(root, 'missing')]) {
        const r = await d.json('POST', '/session', { cwd });
        assert.equal(r.status, 400, cwd);
        assert.equal(r.body.code, 'workspace_mismatch');
      }
      const r = await d.json('POST', '/session', { cwd: outside });
      assert.match(r.body.error, /not a directory under any --allow-workspace-root/);
    } finally {
      removeDir(outside);
    }
  });
});

describe('a second terminal joins a tab', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ config: { modelServices: [], sessionIdleTimeoutMs: 0 } });
  });
  after(() => d.close());

  it('POST /session/{id}/module/join gives a token of its own for the same tab, and the tab’s other tokens keep working', async () => {
    const a = await openTab(d);
    const joined = await d.json('POST', `/session/${a.sessionId}/module/join`);
    assert.equal(joined.status, 200);
    assert.equal(joined.body.tab, a.tab);
    assert.equal(joined.body.socket, a.socket);
    assert.notEqual(joined.body.token, a.token);
    const asJoined = await askModule(a.socket, { token: joined.body.token, op: 'list' });
    assert.equal(asJoined.you!.tab, a.tab);
    assert.equal((await askModule(a.socket, { token: a.token, op: 'list' })).ok, true, 'the first token still works');
  });

  it('POST /session/{id}/module/token, by contrast, replaces every token of the tab', async () => {
    const a = await openTab(d);
    const joined = await d.json('POST', `/session/${a.sessionId}/module/join`);
    await d.json('POST', `/session/${a.sessionId}/module/token`);
    assert.equal((await askModule(a.socket, { token: a.token, op: 'list' })).code, 'unauthorized');
    assert.equal((await askModule(a.socket, { token: joined.body.token, op: 'list' })).code, 'unauthorized');
  });

  it('refuses a module token, and an unknown session', async () => {
    const a = await openTab(d);
    const r = await d.json('POST', `/session/${a.sessionId}/module/join`, undefined, { authorization: `Bearer ${a.token}` });
    assert.equal(r.body.code, 'token_scope_denied');
    assert.equal((await d.json('POST', '/session/00000000-0000-4000-8000-000000000000/module/join')).status, 404);
  });
});

describe('an unknown field on POST /session', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ config: { modelServices: [] } });
  });
  after(() => d.close());

  it('is refused as "unknown field `bogus`", with the fields the body takes', async () => {
    const r = await d.json('POST', '/session', { sessionScope: 'thread', bogus: 1 });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'invalid_request');
    assert.equal(r.body.field, 'bogus');
    assert.match(r.body.error, /^unknown field `bogus`; this body takes `cwd`, `sessionId`/);
    assert.doesNotMatch(r.body.error, /must NOT have additional properties/);
  });

  it('names a nested unknown field by its path', async () => {
    const r = await d.json('POST', '/session', { sessionScope: 'thread', branch: { name: 'x', colour: 'blue' } });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'unknown field `branch.colour`');
  });
});
