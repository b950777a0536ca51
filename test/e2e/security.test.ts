import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { secretsEqual } from '../../src/tokens/tokens.js';
import { spawnBerth, spawnDaemon, startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { rawGet } from '../support/http.js';
import { removeDir, tempDir } from '../support/tmp.js';

/** design.md, Security rules; spec §2: each rule, and a request that tries to break it. */

const TOKEN = 'owner-token-for-tests-0123456789';
const json = async (r: Response): Promise<any> => r.json();

async function exitOf(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawnBerth(args, { BERTH_TOKEN: '' });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

describe('bearer tokens on a loopback daemon with a token', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ config: { token: TOKEN } });
  });
  after(() => d.close());

  it('serves the cheap health probe anonymously (spec §2.5)', async () => {
    const r = await fetch(d.url + '/health');
    assert.equal(r.status, 200);
  });

  it('answers one uniform 401 body for a missing, wrong, empty or non-bearer credential', async () => {
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token' },
      { authorization: 'Bearer ' },
      { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` },
      { authorization: TOKEN },
    ];
    const bodies = new Set<string>();
    for (const headers of variants) {
      const r = await fetch(d.url + '/capabilities', { headers });
      assert.equal(r.status, 401, JSON.stringify(headers));
      assert.equal(r.headers.get('www-authenticate'), null);
      bodies.add(await r.text());
    }
    assert.equal(bodies.size, 1, 'probes cannot tell the failures apart');
    assert.equal(JSON.parse([...bodies][0]!).error, 'Unauthorized');
  });

  it('accepts the owner token with any scheme case and tabs or spaces before it', async () => {
    for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER\t${TOKEN}`]) {
      const r = await fetch(d.url + '/capabilities', { headers: { authorization } });
      assert.equal(r.status, 200, authorization);
    }
  });

  it('refuses an unknown route with 401 before revealing that it does not exist', async () => {
    const r = await fetch(d.url + '/no-such-route');
    assert.equal(r.status, 401);
  });

  it('refuses credentials in the query string even when the header is right', async () => {
    for (const q of ['token', 'access_token', 'api_key', 'authorization']) {
      const r = await fetch(`${d.url}/capabilities?${q}=${TOKEN}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(r.status, 400, q);
      assert.equal((await json(r)).code, 'credentials_in_query');
    }
  });

  it('refuses a channel token and an application token on the client API with 403', async () => {
    const channel = (await d.daemon.core.tokens.createChannelToken('some-remote')).token;
    const app = (await d.daemon.core.tokens.createAppToken('some-app', 'read')).token;
    for (const token of [channel, app]) {
      for (const path of ['/capabilities', '/health', '/file?path=x', '/session/00000000-0000-4000-8000-000000000000/status']) {
        const r = await fetch(d.url + path, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(r.status, 403, path);
        assert.equal((await json(r)).code, 'token_scope_denied');
      }
    }
  });
});

describe('--require-auth', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ config: { token: TOKEN, requireAuth: true } });
  });
  after(() => d.close());

  it('requires the bearer on /health too, and advertises require_auth once authenticated', async () => {
    assert.equal((await fetch(d.url + '/health')).status, 401);
    const ok = await fetch(d.url + '/health', { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(ok.status, 200);
    const caps = await json(await fetch(d.url + '/capabilities', { headers: { authorization: `Bearer ${TOKEN}` } }));
    assert.ok(caps.features.includes('require_auth'));
  });

  it('refuses to start without a token', async () => {
    const home = tempDir('berth-home-');
    try {
      const { code, stderr } = await exitOf(['serve', '--port', '0', '--home', home, '--require-auth']);
      assert.equal(code, 2);
      assert.match(stderr, /--require-auth needs a token/);
    } finally {
      removeDir(home);
    }
  });
});

describe('binds beyond loopback', () => {
  it('refuses to start without a token', async () => {
    const home = tempDir('berth-home-');
    try {
      const { code, stderr } = await exitOf(['serve', '--port', '0', '--home', home, '--hostname', '0.0.0.0']);
      assert.equal(code, 2);
      assert.match(stderr, /not loopback\) needs a token/);
    } finally {
      removeDir(home);
    }
  });

  it('with a token, requires it everywhere including /health, and skips the loopback Host check', async () => {
    const home = tempDir('berth-home-');
    const ws = tempDir('berth-ws-');
    const daemon = await spawnDaemon(['--home', home, '--workspace', ws, '--hostname', '0.0.0.0'], { BERTH_TOKEN: TOKEN });
    try {
      const url = daemon.url.replace('0.0.0.0', '127.0.0.1');
      assert.equal((await fetch(url + '/health')).status, 401);
      const other = await rawGet(url, '/health', { host: 'berth.example:80', authorization: `Bearer ${TOKEN}` });
      assert.equal(other.status, 200);
    } finally {
      await daemon.stop();
      removeDir(home);
      removeDir(ws);
    }
  });
});

describe('browser checks on a loopback daemon', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ config: { allowOrigins: ['https://ide.example'] } });
  });
  after(() => d.close());

  it('refuses a foreign Origin and the null Origin with 403, even on /health', async () => {
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1:1']) {
      const r = await fetch(d.url + '/health', { headers: { origin } });
      assert.equal(r.status, 403, origin);
      assert.equal(r.headers.get('access-control-allow-origin'), null);
      assert.equal((await json(r)).code, 'cors_denied');
    }
  });

  it('echoes an allow-listed Origin with CORS headers and answers its preflight with 204', async () => {
    const r = await fetch(d.url + '/capabilities', { headers: { origin: 'https://ide.example' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), 'https://ide.example');
    assert.equal(r.headers.get('access-control-allow-credentials'), null);
    assert.match(r.headers.get('access-control-expose-headers') ?? '', /X-Qwen-Event-Epoch/);
    assert.ok((await json(r)).features.includes('allow_origin'));
    const pre = await fetch(d.url + '/session', {
      method: 'OPTIONS',
      headers: { origin: 'https://ide.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(pre.status, 204);
    assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
  });

  it('lets the daemon’s own loopback origin through without an allow-list entry', async () => {
    const r = await fetch(d.url + '/health', { headers: { origin: d.url } });
    assert.equal(r.status, 200);
  });

  it('refuses a Host header that is not a loopback name with our port (DNS rebinding)', async () => {
    const port = new URL(d.url).port;
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`, 'localhost']) {
      const r = await rawGet(d.url, '/health', { host });
      assert.equal(r.status, 403, host);
      assert.equal(JSON.parse(r.body).code, 'invalid_host');
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `LOCALHOST:${port}`]) {
      const r = await rawGet(d.url, '/health', { host });
      assert.equal(r.status, 200, host);
    }
  });
});

describe('token comparison', () => {
  it('tells equal secrets from different ones of any length', () => {
    assert.equal(secretsEqual(TOKEN, TOKEN), true);
    assert.equal(secretsEqual(TOKEN, TOKEN + 'x'), false);
    assert.equal(secretsEqual(TOKEN, ''), false);
    assert.equal(secretsEqual('a', 'b'), false);
  });
});
