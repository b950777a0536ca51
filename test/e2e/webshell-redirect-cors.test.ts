import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromiumSkip, openBrowser, type Browser } from '../support/browser.js';
import { startStack, type Stack } from '../support/stack.js';
import { serveStatic, type StaticSite } from '../support/static-site.js';
import { removeDir, tempDir } from '../support/tmp.js';

const TOKEN = 'owner-secret';

/** What a page's `fetch` saw, read inside the browser. */
interface Seen {
  readonly status: number;
  readonly redirected: boolean;
  readonly url: string;
  readonly body: string;
}

/**
 * The Web Shell sends `/workspaces/{cwd}/session/{id}/…` from its own origin with its bearer in
 * `Authorization`, and Berth answers with a 307 to `/session/{id}/…`. A browser keeps
 * `Authorization` across a redirect only while the redirect stays on the same origin (the Fetch
 * standard drops it on a cross-origin hop), and it checks CORS on the 307 and again on its target,
 * each after a preflight of its own. Real Chromium, a page on another origin, and a daemon that
 * requires the token: the redirect is only useful if the page gets the target's answer.
 */
describe('a cross-origin page following Berth\'s 307 for a workspace session route', { skip: chromiumSkip, timeout: 120_000 }, () => {
  let stack: Stack;
  let site: StaticSite;
  let dir: string;
  let browser: Browser;
  let session: { sessionId: string; clientId: string };

  before(async () => {
    dir = tempDir('berth-redirect-cors-');
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>elsewhere</title><p>another origin</p>');
    site = await serveStatic(dir);
    stack = await startStack({ config: { allowOrigins: [site.url], token: TOKEN } });
    const created = await stack.daemon.json('POST', '/session', { cwd: stack.daemon.workspace, sessionScope: 'thread' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    session = created.body;
    browser = await openBrowser(join(dir, 'profile'));
    await browser.page.goto(site.url);
  });

  after(async () => {
    await browser?.context.close();
    await stack?.close();
    await site?.close();
    if (dir) removeDir(dir);
  });

  const fromPage = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Seen> =>
    browser.page.evaluate(
      async ({ url, init }) => {
        const res = await fetch(url, init);
        return { status: res.status, redirected: res.redirected, url: res.url, body: await res.text() };
      },
      { url: `${stack.daemon.url}${path}`, init },
    );

  const workspacePath = () => `/workspaces/${encodeURIComponent(stack.daemon.workspace)}/session/${session.sessionId}`;

  test('a GET with the bearer follows the 307 and reads the target\'s answer', async () => {
    const seen = await fromPage(`${workspacePath()}/transcript?limit=5`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(seen.status, 200, seen.body);
    assert.equal(seen.redirected, true, 'the answer came from the redirect target');
    assert.equal(seen.url, `${stack.daemon.url}/session/${session.sessionId}/transcript?limit=5`);
    assert.equal(JSON.parse(seen.body).sessionId, session.sessionId);
  });

  test('a PATCH with the bearer and client id is replayed on the target, body and all', async () => {
    const seen = await fromPage(`${workspacePath()}/metadata`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-qwen-client-id': session.clientId },
      body: JSON.stringify({ displayName: 'renamed across origins' }),
    });
    assert.equal(seen.status, 200, seen.body);
    assert.equal(seen.redirected, true);
    const status = await stack.daemon.json('GET', `/session/${session.sessionId}/status`);
    assert.equal(status.body.displayName ?? status.body.metadata?.displayName, 'renamed across origins', JSON.stringify(status.body));
  });

  test('without the bearer the page is told 401, readable because the refusal carries CORS headers too', async () => {
    const seen = await fromPage(`${workspacePath()}/transcript`, {});
    assert.equal(seen.status, 401, seen.body);
    assert.equal(seen.redirected, false, 'no redirect is handed out before the token is checked');
    assert.equal(JSON.parse(seen.body).code, 'unauthorized');
  });
});
