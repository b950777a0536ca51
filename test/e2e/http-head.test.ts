import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';

/**
 * A HEAD request is answered by the GET route of its URL (http/server.ts registers no HEAD routes of
 * its own): the same status and headers as the GET, and no body.
 */

let d: TestDaemon;
before(async () => (d = await startTestDaemon({ files: { 'notes.txt': 'hello\n' } })));
after(() => d.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(method: 'GET' | 'HEAD', path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${d.url}${path}`, { method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

for (const path of ['/health', '/capabilities', '/file?path=notes.txt', '/session/no-such-session/status', '/no/such/route']) {
  test(`HEAD ${path} answers the GET's status and headers without a body`, async () => {
    const get = await send('GET', path);
    const head = await send('HEAD', path);
    assert.equal(head.status, get.status);
    assert.equal(head.body, '');
    assert.ok(get.body.length > 0, 'the GET has a body to leave out');
    for (const name of ['content-type', 'content-length', 'x-content-type-options']) {
      assert.equal(head.headers[name], get.headers[name], name);
    }
  });
}
