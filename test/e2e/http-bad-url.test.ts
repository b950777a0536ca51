import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { rawGet } from '../support/http.js';

/**
 * Found by the client API fuzzing (issue 16): a path fastify cannot decode
 * was answered with fastify's own body (`FST_ERR_BAD_URL`, `statusCode`), and
 * a path parameter over the length limit with 414, neither the contract's
 * `Error` body. Both are the client's error, refused 400 `invalid_request`.
 */

let d: TestDaemon;
before(async () => (d = await startTestDaemon()));
after(() => d.close());

for (const path of ['/session/%zz/status', '/session/%ed%a0%80/status', '/session/%c0%af/resume', `/session/${'a'.repeat(2_000)}/status`]) {
  test(`${path.slice(0, 40)} is refused 400 invalid_request with the contract's Error body`, async () => {
    const r = await rawGet(d.url, path, {});
    assert.equal(r.status, 400, r.body);
    const body = JSON.parse(r.body);
    assert.equal(body.code, 'invalid_request');
    assert.equal(body.status, 400);
    assert.equal(typeof body.error, 'string');
    assert.equal(body.retryable, false);
  });
}
