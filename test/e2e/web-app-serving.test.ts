import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';

/**
 * Issue 13: with an owner token, a browser must still load the web app's page and assets to see
 * its login screen — and nothing else gets through without the token.
 */
describe('the web app on a daemon with an owner token', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ config: { modelServices: [], token: 'serving-test-token-0123456789abcdef' } });
  });
  after(() => d.close());

  const bare = (path: string, accept = 'text/html') => fetch(d.url + path, { headers: { accept } });

  it('serves the page and its hashed assets without the token', async () => {
    const page = await bare('/');
    assert.equal(page.status, 200);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.length >= 2, html);
    for (const asset of assets) {
      const res = await bare(asset, '*/*');
      assert.equal(res.status, 200, asset);
      assert.match(res.headers.get('cache-control') ?? '', /immutable/);
    }
  });

  it('keeps everything else behind the token: the JSON landing, the API and unknown assets say so', async () => {
    assert.equal((await bare('/', 'application/json')).status, 401);
    assert.equal((await bare('/capabilities', 'application/json')).status, 401);
    assert.equal((await bare('/sessions', 'text/html')).status, 401, 'asking for HTML opens nothing but the page');
    assert.equal((await fetch(d.url + '/', { method: 'POST', headers: { accept: 'text/html' } })).status, 401);
    assert.equal((await bare('/assets/missing.js', '*/*')).status, 404);
    assert.equal((await d.fetch('/capabilities')).status, 200, 'with the token the API answers');
  });
});
