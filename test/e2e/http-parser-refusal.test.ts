import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { KeepAliveClient } from '../support/fuzz.js';

/**
 * A request Node's parser refuses (headers over 16 KiB) is answered with the
 * contract's Error body and `Connection: close`, and the connection is closed:
 * a keep-alive client then opens a new connection for its next request
 * instead of sending it into a closed one (the hang-up the HTTP route fuzzing
 * met on a valid `GET /workspace/tools` that followed such a refusal).
 */
let d: TestDaemon;
before(async () => {
  d = await startTestDaemon();
});
after(() => d.close());

test('headers over 16 KiB get 431 with the Error body and Connection: close, and the next request on the pool is answered', async () => {
  // One socket: the refused request and the ones after it share the pool's only connection slot.
  const client = new KeepAliveClient(d.url, 1);
  try {
    for (let i = 0; i < 20; i++) {
      const refused = await client.send({ method: 'GET', path: '/workspace/tools', headers: { 'x-padding': 'p'.repeat(20 * 1024) } });
      assert.equal(refused.status, 431);
      assert.equal(refused.headers.connection, 'close');
      const body = JSON.parse(refused.body);
      assert.deepEqual([body.code, body.status], ['request_headers_too_large', 431]);
      const next = await client.send({ method: 'GET', path: '/workspace/tools' });
      assert.equal(next.status, 200, `request ${i} after a refusal: ${next.error ?? ''}`);
    }
    assert.equal(client.retried, 0, 'no request went into a connection the daemon had closed');
  } finally {
    client.close();
  }
});
