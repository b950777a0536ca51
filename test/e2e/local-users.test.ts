import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { procAddress } from '../../src/net/peer-uid.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';

/**
 * Issue 16, finding 7: an anonymous loopback daemon serves the local user it
 * runs as, not every local user. Another user is played by uid 65534
 * ("nobody"), which only a root test run can become.
 */

const TOKEN = 'owner-token-for-other-users-0123456789';
const isRoot = process.getuid?.() === 0;
const notRoot = isRoot ? false : 'only root can run a client as another user (uid 65534)';

/** `method path` from a node process running as uid 65534; resolves with its status and body. */
function asNobody(url: string, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const script = `fetch(process.argv[1], { method: process.argv[2], headers: JSON.parse(process.argv[3]), ...(process.argv[2] === 'POST' ? { body: '{}' } : {}) })
    .then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() })), (e) => console.log(JSON.stringify({ status: 0, body: String(e) })))`;
  const child = spawn(process.execPath, ['-e', script, url + path, method, JSON.stringify({ 'content-type': 'application/json', ...headers })], {
    uid: 65534,
    gid: 65534,
    cwd: '/',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', () => {
      const r = JSON.parse(out);
      let body: any = r.body;
      try {
        body = JSON.parse(r.body);
      } catch {
        /* keep text */
      }
      resolve({ status: r.status, body });
    });
  });
}

describe('an anonymous loopback daemon and the other local users', { skip: notRoot }, () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon();
  });
  after(() => d.close());

  it('refuses another user with 403 local_user_denied: no session, no health probe', async () => {
    const created = await asNobody(d.url, 'POST', '/session');
    assert.equal(created.status, 403, JSON.stringify(created.body));
    assert.equal(created.body.code, 'local_user_denied');
    assert.equal((await asNobody(d.url, 'GET', '/health')).status, 403);
    assert.equal(d.daemon.core.sessions.list().length, 0, 'nothing was created');
  });

  it('serves its own user as before', async () => {
    const created = await d.json('POST', '/session', {});
    assert.equal(created.status, 200, JSON.stringify(created.body));
  });
});

describe('a loopback daemon with a token and the other local users', { skip: notRoot }, () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ config: { token: TOKEN } });
  });
  after(() => d.close());

  it('lets the token decide: another user holding it is served, without it is 401', async () => {
    assert.equal((await asNobody(d.url, 'GET', '/capabilities')).status, 401);
    const withToken = await asNobody(d.url, 'GET', '/capabilities', { authorization: `Bearer ${TOKEN}` });
    assert.equal(withToken.status, 200);
  });
});

describe('/proc/net/tcp addresses', () => {
  it('are written word by word in host byte order, with the port in hex', () => {
    assert.deepEqual(procAddress('127.0.0.1', 4170), { family: 4, text: '0100007F:104A' });
    assert.deepEqual(procAddress('::1', 80), { family: 6, text: '00000000000000000000000001000000:0050' });
    assert.deepEqual(procAddress('::ffff:127.0.0.1', 1), { family: 6, text: '0000000000000000FFFF00000100007F:0001' });
  });
});
