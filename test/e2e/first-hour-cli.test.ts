import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnBerth, startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { createAppToken } from '../support/notes-app.js';
import { openTab } from '../support/module.js';
import { removeDir, tempDir } from '../support/tmp.js';

/** Issue 11 from the command line: help that answers the first questions, tokens kept off screens and process lists. */

const repoRoot = new URL('../..', import.meta.url).pathname;
/** None of the runner's model, module or daemon settings leak into the commands under test. */
const clean = { OPENAI_BASE_URL: '', OPENAI_API_KEY: '', OPENAI_MODEL: '', BERTH_TOKEN: '', BERTH_URL: '', BERTH_MODULE_SOCKET: '', BERTH_MODULE_TOKEN: '', BERTH_MODULE_SESSION: '' };

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnBerth(args, { ...clean, ...env });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('berth serve --help', () => {
  it('says how to configure a model (OPENAI_* or config.json), what --require-auth adds, and that other Origins are refused', async () => {
    const r = await run(['serve', '--help']);
    assert.equal(r.code, 0);
    const help = r.stdout.replace(/\s+/g, ' ');
    assert.match(help, /OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL/);
    assert.match(help, /config\.json/);
    assert.match(help, /npm run demo/);
    assert.match(help, /--require-auth require the token for \/health too \(with a token, every other route already needs it\)/);
    assert.doesNotMatch(help, /also for \/health and \/capabilities/);
    assert.match(help, /--allow-origin <origin> .*Requests from any other Origin are refused/);
    assert.match(help, /--allow-workspace-root <dir>/);
    assert.match(help, /--no-web/);
  });
});

describe('the start-up line about model services', () => {
  let home: string;
  let workspace: string;
  before(() => {
    home = tempDir('berth-home-');
    workspace = tempDir('berth-ws-');
  });
  after(() => {
    removeDir(home);
    removeDir(workspace);
  });

  /** `berth serve` on the home and workspace until it printed two lines (listening, then the summary), then stopped. */
  async function firstTwoLines(env: NodeJS.ProcessEnv): Promise<string[]> {
    const child = spawnBerth(['serve', '--port', '0', '--home', home, '--workspace', workspace], { ...clean, ...env });
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const lines = await new Promise<string[]>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const got = out.split('\n');
        if (got.length > 2) resolve(got.slice(0, 2));
      });
      void exited.then(() => reject(new Error(`berth serve exited first; it printed: ${out}`)));
    });
    child.kill('SIGTERM');
    await exited;
    return lines;
  }

  it('says no model service is configured and how to add one, when there is none', async () => {
    const [listening, summary] = await firstTwoLines({});
    assert.match(listening!, /^berth listening on http:/);
    assert.match(
      summary!,
      /^berth: no model service is configured, so prompts will fail: set OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL, or list modelServices in \S+config\.json \(npm run demo/,
    );
  });

  it('names the configured services and the agent otherwise', async () => {
    const [, summary] = await firstTwoLines({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-x', OPENAI_MODEL: 'm1' });
    assert.equal(summary, 'berth: model services: env (model m1, default); agent: built-in');
  });
});

describe('berth token create --out', () => {
  let home: string;
  let dir: string;
  before(() => {
    home = tempDir('berth-home-');
    dir = tempDir('berth-tokens-');
  });
  after(() => {
    removeDir(home);
    removeDir(dir);
  });

  it('writes the token to a new file only its owner can read, and prints where, not the token', async () => {
    const out = join(dir, 'notes.token');
    const r = await run(['token', 'create', '--app', 'notes', '--max-policy', 'write', '--home', home, '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(statSync(out).mode & 0o777, 0o600);
    assert.match(readFileSync(out, 'utf8'), /^berth_app_[A-Za-z0-9_-]+\n$/);
    assert.doesNotMatch(r.stdout, /berth_app_/);
    assert.match(r.stdout, /mode 0600/);
  });

  it('refuses a file that exists (its mode may let others read it) and leaves it as it was', async () => {
    const out = join(dir, 'existing.token');
    writeFileSync(out, 'keep me\n', { mode: 0o644 });
    const r = await run(['token', 'create', '--channel', '--workspace', 'parser-fix', '--home', home, '--out', out]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /exists; remove it or name a new file/);
    assert.equal(readFileSync(out, 'utf8'), 'keep me\n');
  });

  it('without --out still prints only the token', async () => {
    const r = await run(['token', 'create', '--app', 'plain', '--home', home]);
    assert.match(r.stdout, /^berth_app_\S+\n$/);
  });
});

describe('the example app takes its token from a file or the environment, never its command line', () => {
  let d: TestDaemon;
  let dir: string;
  before(async () => {
    d = await startTestDaemon({ config: { modelServices: [] } });
    dir = tempDir('berth-tokens-');
  });
  after(async () => {
    await d.close();
    removeDir(dir);
  });

  const notes = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/notes-app.ts', ...args], {
      cwd: repoRoot,
      env: { ...process.env, BERTH_APP_TOKEN: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const connected = new Promise<boolean>((resolve) => {
      child.stdout!.on('data', () => stdout.includes('notes app connected') && resolve(true));
      void exited.then(() => resolve(false));
    });
    return { child, exited, connected, output: () => ({ stdout, stderr }) };
  };

  it('refuses --token, saying why and what to use instead', async () => {
    const app = notes(['--url', d.url, '--token', 'berth_app_visible']);
    assert.equal(await app.exited, 2);
    assert.match(app.output().stderr, /visible to every local user; pass --token-file FILE or set BERTH_APP_TOKEN/);
  });

  it('connects with --token-file', async () => {
    const file = join(dir, 'notes.token');
    writeFileSync(file, (await createAppToken(d.home, 'notes', 'write')) + '\n', { mode: 0o600 });
    const app = notes(['--url', d.url, '--token-file', file]);
    assert.equal(await app.connected, true, app.output().stderr);
    app.child.kill('SIGTERM');
    await app.exited;
  });
});

describe('berth msg --session joins as that tab through the client API', () => {
  let d: TestDaemon;
  let guarded: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ config: { modelServices: [], sessionIdleTimeoutMs: 0 } });
    guarded = await startTestDaemon({ config: { modelServices: [], sessionIdleTimeoutMs: 0, token: 'owner-secret-token' } });
  });
  after(async () => {
    await d.close();
    await guarded.close();
  });

  it('lists as that tab with no module token or socket given, while the tab’s own token keeps working', async () => {
    const a = await openTab(d);
    const r = await run(['msg', 'list', '--session', a.sessionId, '--url', d.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^You are tab ${a.tab} in workspace`));
    const again = await run(['msg', 'list', '--socket', a.socket, '--token', a.token]);
    assert.equal(again.code, 0, again.stderr);
  });

  it('uses $BERTH_URL and the owner token from $BERTH_TOKEN, and says what to set when it is missing', async () => {
    const created = await guarded.json('POST', '/session', { sessionScope: 'thread' });
    const sessionId = created.body.sessionId as string;
    const denied = await run(['msg', 'list', '--session', sessionId], { BERTH_URL: guarded.url });
    assert.equal(denied.code, 2);
    assert.match(denied.stderr, /set BERTH_TOKEN to the daemon's owner token/);
    const ok = await run(['msg', 'list', '--session', sessionId], { BERTH_URL: guarded.url, BERTH_TOKEN: 'owner-secret-token' });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^You are tab \d+ in workspace/);
  });

  it('without --session or a token still says what it needs', async () => {
    const r = await run(['msg', 'list']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /needs the module socket|needs a module token/);
  });

  it('names the URL when no daemon answers there', async () => {
    const r = await run(['msg', 'list', '--session', '00000000-0000-4000-8000-000000000000', '--url', 'http://127.0.0.1:9']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no daemon answered at http:\/\/127\.0\.0\.1:9/);
    assert.equal(existsSync(join(repoRoot, 'notes.token')), false);
  });
});
