import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { agentCall, until } from '../support/raw-app.js';

const MiB = 1024 * 1024;

/** Debian's chromium (CI installs it); playwright-core never downloads a browser. */
function chromiumPath(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** The SDK bundled for browsers: if it needed a Node module, this build (platform browser) would fail. */
async function browserBundle(): Promise<string> {
  const entry = new URL('../../src/app/index.ts', import.meta.url).pathname;
  const out = await build({ entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'error' });
  return out.outputFiles[0]!.text;
}

/** A page origin of our own, serving an empty page and the bundle. */
async function pageServer(bundle: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    if (request.url === '/sdk.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    else response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Berth test page</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const executable = chromiumPath();

describe('berth/app in a real browser', { skip: executable === null ? 'chromium is not installed' : false, timeout: 120_000 }, () => {
  let d: TestDaemon;
  let pages: { server: Server; origin: string };
  let browser: Browser;
  let page: Page;

  before(async () => {
    pages = await pageServer(await browserBundle());
    d = await startTestDaemon({ config: { allowOrigins: [pages.origin] } });
    browser = await chromium.launch({ executablePath: executable!, args: ['--no-sandbox'] });
    page = await browser.newPage();
    await page.goto(pages.origin);
    const token = (await d.daemon.core.tokens.createAppToken('browser-page', 'read')).token;
    // Source text, not a function: the test's own transpiler would add helpers the page does not have.
    await page.evaluate(`(async () => {
      const { connect } = await import('/sdk.js');
      window.berthApp = await connect(${JSON.stringify(d.url)}, ${JSON.stringify(token)}, {
        tools: [
          { id: 'page.title', description: 'The page title', category: 'page', policy: 'read',
            inputSchema: { type: 'object' }, handler: () => document.title },
          { id: 'page.repeat', description: 'Repeats text', category: 'page', policy: 'read',
            inputSchema: { type: 'object', properties: { text: { type: 'string' }, times: { type: 'integer' } }, required: ['text', 'times'] },
            handler: ({ text, times }) => ({ length: text.length, repeated: text.repeat(times) }) },
        ],
      });
    })()`);
    await until(() => d.daemon.core.tools.applications.list(d.daemon.core.workspaces.primary().id).length === 2);
  });
  after(async () => {
    await browser?.close();
    await d?.close();
    await new Promise<void>((resolve) => pages?.server.close(() => resolve()) ?? resolve());
  });

  it('connects with the bearer subprotocol from an allowed origin and answers an agent call', async () => {
    const outcome = await agentCall(d, 'page.title', {});
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.deepEqual(outcome.result.value, { result: 'Berth test page' });
  });

  it('reads compressed arguments and sends a result larger than a frame, which only compressed can arrive (the browser codec)', async () => {
    const text = 'browser '.repeat(8 * 1024);
    const outcome = await agentCall(d, 'page.repeat', { text, times: (3 * MiB) / text.length });
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const value = outcome.result.value as { result: { length: number; repeated: string } };
    assert.equal(value.result.length, text.length, 'the 64 KiB argument arrived whole (the daemon sends it wrapped)');
    assert.equal(value.result.repeated.length, 3 * MiB, 'three times the 2 MiB frame limit');
  });
});
