import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { rawRequest } from '../support/http.js';

/**
 * A HEAD request is answered by the GET route of its URL (http/server.ts registers no HEAD routes of
 * its own): the same status and headers as the GET, and no body.
 */

let d: TestDaemon;
before(async () => (d = await startTestDaemon({ files: { 'notes.txt': 'hello\n' } })));
after(() => d.close());

for (const path of ['/health', '/capabilities', '/file?path=notes.txt', '/session/no-such-session/status', '/no/such/route']) {
  test(`HEAD ${path} answers the GET's status and headers without a body`, async () => {
    const get = await rawRequest('GET', d.url, path);
    const head = await rawRequest('HEAD', d.url, path);
    assert.equal(head.status, get.status);
    assert.equal(head.body, '');
    assert.ok(get.body.length > 0, 'the GET has a body to leave out');
    for (const name of ['content-type', 'content-length', 'x-content-type-options']) {
      assert.equal(head.headers[name], get.headers[name], name);
    }
  });
}
