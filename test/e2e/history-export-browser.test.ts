import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { EXPORT_FIXTURE, HOSTILE_PROMPT, sessionForExport } from '../support/export-session.js';
import { startStack, type Stack } from '../support/stack.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * The HTML export as a person sees it (issue 4 acceptance): opened from disk
 * in Debian's headless Chromium driven by playwright-core, then read the way a
 * reader would — the visible text, what is collapsed, what the page loaded,
 * light and dark. `.ci/run` installs chromium, so in CI this never skips.
 */
const CHROMIUM = process.env.BERTH_CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const skip = !available && !process.env.CI ? `headless Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)` : false;

describe('the HTML export in a browser', { skip, timeout: 120_000 }, () => {
  let stack: Stack;
  let dir: string;
  let context: BrowserContext;
  let page: Page;
  /** Every URL the page asked for after it was opened. */
  const requests: string[] = [];

  before(async () => {
    assert.ok(available, `CI must run this test: no Chromium at ${CHROMIUM}`);
    stack = await startStack({ files: EXPORT_FIXTURE });
    const { sessionId } = await sessionForExport(stack);
    const html = await (await stack.daemon.fetch(`/session/${sessionId}/export?format=html`)).text();
    dir = tempDir('berth-export-');
    const file = join(dir, 'export.html');
    writeFileSync(file, html);
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(file).href);
  });

  after(async () => {
    await context?.close();
    await stack?.close();
    if (dir) removeDir(dir);
  });

  test('a reader sees the prompts, the answers and the tool calls with their arguments and results', async () => {
    const visible = await page.locator('body').innerText();
    assert.ok(visible.includes(HOSTILE_PROMPT), 'the prompt, markup and all, shows as text');
    assert.ok(visible.includes('Try once more'));
    assert.ok(visible.includes('I will write greeting.txt.'));
    assert.ok(visible.includes('Wrote greeting.txt; the owner kept README.md.'));
    assert.ok(visible.includes('workspace_write'));
    assert.ok(visible.includes('Write greeting.txt'));
    assert.ok(visible.includes('"content": "hello <b>world</b>\\n"'), 'the arguments as JSON');
    assert.ok(visible.includes('workspace_delete'));
    const tools = page.locator('details.tool');
    assert.equal(await tools.count(), 2);
    assert.equal(await tools.nth(0).locator('.badge').innerText(), 'completed');
    assert.equal(await tools.nth(1).locator('.badge').innerText(), 'failed');
    assert.match(await tools.nth(1).innerText(), /permission_rejected|rejected/i);
  });

  test('a reader sees both permission decisions and the failed turn', async () => {
    const notes = await page.locator('.note').allInnerTexts();
    assert.ok(notes.some((n) => /^Permission Write greeting\.txt — Allowed once/.test(n)), notes.join('\n'));
    assert.ok(notes.some((n) => /^Permission Delete README\.md — Rejected once/.test(n)), notes.join('\n'));
    assert.ok(notes.some((n) => /^Error .*fell over/.test(n)), notes.join('\n'));
  });

  test('thoughts are collapsed until the reader opens them', async () => {
    const thought = 'The user wants a greeting file; I should write it first.';
    assert.ok(!(await page.locator('body').innerText()).includes(thought));
    await page.locator('details.thought summary').first().click();
    assert.ok((await page.locator('body').innerText()).includes(thought));
  });

  test('nothing in the transcript ran and the page loaded nothing but itself', async () => {
    assert.equal(await page.evaluate('typeof window.__pwned'), 'undefined');
    assert.equal(await page.locator('script').count(), 0);
    assert.equal(await page.locator('img').count(), 0);
    assert.deepEqual(requests.filter((u) => !u.startsWith('file:')), []);
    // The stylesheet is the one the CSP allows by hash, so it applied.
    const width = await page.evaluate('getComputedStyle(document.body).maxWidth');
    assert.notEqual(width, 'none');
  });

  test('the page follows the light and dark color schemes', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    // Expressions as strings: these run in the page, and the tests compile without the DOM typings.
    const background = 'getComputedStyle(document.documentElement).backgroundColor';
    const light = (await page.evaluate(background)) as string;
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = (await page.evaluate(background)) as string;
    assert.notEqual(light, dark);
    const luminance = (rgb: string) => rgb.match(/\d+/g)!.slice(0, 3).reduce((n, c) => n + Number(c), 0);
    assert.ok(luminance(light) > luminance(dark), `${light} should be lighter than ${dark}`);
    if (process.env.BERTH_EXPORT_SCREENSHOT) {
      await page.screenshot({ path: `${process.env.BERTH_EXPORT_SCREENSHOT}-dark.png`, fullPage: true });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.screenshot({ path: `${process.env.BERTH_EXPORT_SCREENSHOT}-light.png`, fullPage: true });
    }
  });
});
