import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
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

  it('names in the page every script its scripts import statically, so none waits for another to arrive first', async () => {
    const html = await (await bare('/')).text();
    const named = new Set([...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]!));
    assert.ok(named.size >= 2, html);
    for (const name of named) {
      const code = await (await bare(`/assets/${name}`, '*/*')).text();
      // Static imports only (`import … from "./x.js"`): the highlighter is a dynamic import, fetched later on purpose.
      for (const [, imported] of code.matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)) {
        assert.ok(named.has(imported!), `${name} imports ${imported}, which the page does not name`);
      }
    }
  });

  it('sends the scripts and styles gzipped to a browser that takes gzip, and as they are to one that does not', async () => {
    const html = await (await bare('/')).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    // node:http, not fetch: fetch would ask for gzip and unpack the answer itself.
    const get = (acceptEncoding?: string) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const req = request(d.url + script, { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('error', reject).end();
      });
    const plain = await get();
    assert.equal(plain.headers['content-encoding'], undefined);
    const zipped = await get('gzip, deflate, br');
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers.vary, 'Accept-Encoding');
    assert.ok(zipped.body.length < plain.body.length / 2, `${zipped.body.length} of ${plain.body.length} bytes`);
    assert.deepEqual(gunzipSync(zipped.body), plain.body);
    assert.equal((await get('gzip;q=0, identity')).headers['content-encoding'], undefined);
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
