import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { assertHealthy, watchHealth } from '../support/health-watch.js';

/** Issue 16 #3: `*a*a*a*a*a*a*a*a*b` against one 60-`a` file name blocked the daemon for 119 s. */
let d: TestDaemon;
before(async () => {
  d = await startTestDaemon({ files: { ['a'.repeat(60)]: 'x', [`sub/${'a'.repeat(200)}`]: 'y', 'aaaaaaaaab': 'z' } });
});
after(() => d.close());

test('a backtracking /glob pattern over long names answers at once while /health stays prompt', async () => {
  const health = await watchHealth(d.url);
  const started = Date.now();
  for (let i = 0; Date.now() - started < 500 || i < 3; i++) {
    const r = await d.json('GET', `/glob?pattern=${encodeURIComponent('**/*a*a*a*a*a*a*a*a*b')}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.matches, ['aaaaaaaaab']);
  }
  assertHealthy('backtracking glob patterns', await health.stop());
});
