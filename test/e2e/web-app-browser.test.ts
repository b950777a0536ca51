import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { chromiumAvailable, chromiumSkip, CHROMIUM, openBrowser, type Browser } from '../support/browser.js';
import { askModule } from '../../src/modules/index.js';
import { TEST_AGENT_ID, withAgents } from '../support/acp-stack.js';
import { CuttingProxy } from '../support/cutting-proxy.js';
import { storeGeneratedSession } from '../support/history.js';
import { writeReply } from '../support/model-script.js';
import { openTab } from '../support/module.js';
import { createAppToken, startNotesApp, type NotesApp } from '../support/notes-app.js';
import { startStack, type Stack } from '../support/stack.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * Issue 13 acceptance: the web app as a person uses it, in Debian's headless Chromium, against a
 * real daemon (with an owner token) whose agent talks to the scripted model. The tests run in
 * order on one page, as one person's visit: sign in, start a session, prompt, vote, reload, cancel,
 * switch model, export, browse files. Screenshots of the main screens land in .berth-test/screenshots.
 */
const TOKEN = 'web-app-test-token-0123456789abcdef';
const DOCS_SCREENSHOTS = new URL('../../docs/images/', import.meta.url).pathname;

describe('the web app in a browser', { skip: chromiumSkip, timeout: 300_000 }, () => {
  let stack: Stack;
  let dir: string;
  let browser: Browser;
  let page: Page;
  let sessionId = '';
  let proxy: CuttingProxy;
  let notes: NotesApp | undefined;

  const openPermission = () => page.locator('.permission.open').first();
  async function send(text: string) {
    await page.getByLabel('Prompt').fill(text);
    await page.getByLabel('Prompt').press('Enter');
  }

  before(async () => {
    assert.ok(chromiumAvailable, `CI must run this test: no Chromium at ${CHROMIUM}`);
    // The suite's small ACP agent is offered too, so the new-session form can pick it.
    stack = await startStack(
      withAgents(
        {},
        {
          config: { token: TOKEN },
          files: { 'README.md': '# Demo project\n\nSome *notes*.\n', 'src/main.ts': 'export const answer: number = 42;\n', 'blob.bin': Buffer.from([0, 1, 2, 0, 255, 0]) },
        },
      ),
    );
    dir = tempDir('berth-web-');
    proxy = await new CuttingProxy().start();
    browser = await openBrowser(join(dir, 'profile'), undefined, proxy.url);
    page = browser.page;
    page.setDefaultTimeout(30_000);
  });

  after(async () => {
    await notes?.stop();
    await browser?.context.close();
    await proxy?.close();
    await stack?.close();
    if (dir) removeDir(dir);
  });

  test('a wrong token is refused on the login screen and the owner token signs in', async () => {
    await page.goto(stack.daemon.url + '/');
    await page.getByLabel('Token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That token was refused.').waitFor();
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'New session' }).waitFor();
    assert.equal(await page.evaluate("sessionStorage.getItem('berth.token')"), TOKEN, 'the token is kept in session storage');
    assert.ok(!page.url().includes(TOKEN), 'the token never appears in a URL');
  });

  test('a new session opens live and a prompt streams back as Markdown', async () => {
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/#\/s\/[0-9a-f-]{36}$/);
    sessionId = /#\/s\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    await page.locator('.link-live').waitFor();
    stack.model.enqueue({ kind: 'reply', reasoning: 'Say hello.', text: 'Hello **world**, here is `code`.' });
    await send('Say hello');
    await page.locator('.msg.agent strong', { hasText: 'world' }).waitFor();
    assert.equal(await page.locator('.msg.user').first().innerText(), 'Say hello');
    assert.equal(await page.locator('details.thought[open]').count(), 0, 'thoughts are folded');
    await browser.screenshot('session');
  });

  test('a reload shows the answer as plain text in its first frame, then as Markdown', async () => {
    // Read on every animation frame by a script the page runs before its own: the first frame
    // showing the answer must not wait for the Markdown renderer (compiling it costs more than
    // the rest of that frame), and the renderer must follow without anything else happening.
    // A string, not a function: the test runner's compiler wraps functions in helpers the page lacks.
    await page.addInitScript(`(() => {
      if (!location.hash.includes(${JSON.stringify(sessionId)})) return;
      const tick = () => {
        const answer = document.querySelector('.msg.agent .md');
        if (answer) window.firstAnswer = { plain: answer.classList.contains('plain'), text: answer.textContent };
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    })()`);
    await page.reload();
    await page.locator('.msg.agent .md:not(.plain) strong', { hasText: 'world' }).waitFor();
    const first = await page.evaluate(() => (globalThis as unknown as { firstAnswer: { plain: boolean; text: string } }).firstAnswer);
    assert.deepEqual(first, { plain: true, text: 'Hello **world**, here is `code`.' });
    assert.equal(await page.locator('.msg.agent code', { hasText: 'code' }).count(), 1);
  });

  test('one permission approved and another rejected in place: the file is written, the other is not', async () => {
    stack.model.enqueue(writeReply('approved.txt', 'yes\n'), writeReply('rejected.txt', 'no\n'), { kind: 'reply', text: 'Both asked.' });
    await send('Write two files');
    await openPermission().locator('.diff').waitFor();
    assert.match(await openPermission().innerText(), /approved\.txt/);
    await browser.screenshot('permission');
    await openPermission().locator('button.allow').first().click();
    await page.locator('.permission.open', { hasText: 'rejected.txt' }).waitFor();
    await openPermission().locator('button.reject').first().click();
    await page.getByText('Both asked.').waitFor();
    assert.equal(readFileSync(join(stack.daemon.workspace, 'approved.txt'), 'utf8'), 'yes\n');
    assert.equal(existsSync(join(stack.daemon.workspace, 'rejected.txt')), false);
    assert.equal(await page.locator('.tool.status-completed').count(), 1);
    assert.equal(await page.locator('.tool.status-failed').count(), 1);
  });

  test('a question from the agent is answered in place and the answer reaches the model', async () => {
    stack.model.enqueue(
      { kind: 'reply', toolCalls: [{ name: 'workspace_ask', arguments: { question: 'Which colour should the button be?' } }] },
      { kind: 'reply', text: 'Teal it is.' },
    );
    await send('Ask me first');
    await page.getByLabel('Which colour should the button be?').fill('Teal');
    await page.getByRole('button', { name: 'Answer' }).click();
    await page.getByText('Teal it is.').waitFor();
    const chats = stack.model.requests.filter((r) => r.path.endsWith('/chat/completions'));
    assert.match(JSON.stringify(chats[chats.length - 1]!.body.messages), /Teal/);
  });

  test('a reload mid-turn restores the same view with the pending permission, which still answers', async () => {
    stack.model.enqueue(writeReply('after-reload.txt', 'kept\n'), { kind: 'reply', text: 'Written after the reload.' });
    await send('Write after reload');
    await openPermission().waitFor();
    await page.reload();
    await openPermission().waitFor();
    assert.match(await openPermission().innerText(), /after-reload\.txt/);
    assert.ok(await page.getByText('Both asked.').isVisible(), 'the earlier conversation is back too');
    await page.keyboard.press('Alt+a');
    await page.getByText('Written after the reload.').waitFor();
    assert.equal(readFileSync(join(stack.daemon.workspace, 'after-reload.txt'), 'utf8'), 'kept\n');
  });

  test('Escape cancels the running turn', async () => {
    stack.model.enqueue({ kind: 'hang', text: 'Thinking for a long time' });
    await send('Take your time');
    await page.getByRole('button', { name: 'Cancel turn' }).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.note', { hasText: 'cancelled' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Cancel turn' }).count(), 0);
  });

  test('switching the model makes the next turn use it', async () => {
    await page.getByLabel('Model').selectOption('scripted/scripted-model-2');
    await page.locator('.note', { hasText: 'Model switched' }).waitFor();
    const before = stack.model.requests.length;
    stack.model.enqueue({ kind: 'reply', text: 'From the second model.' });
    await send('Which model?');
    await page.getByText('From the second model.').waitFor();
    const chat = stack.model.requests.slice(before).find((r) => r.path.endsWith('/chat/completions'));
    assert.equal(chat?.body.model, 'scripted-model-2');
  });

  test('a dropped connection shows Reconnecting, then resumes from its last event without losing or repeating what it missed', async () => {
    // Keep the network down until the daemon has the missed answer: only then let the page back in.
    const seen = browser.problems.length;
    await page.route('**/events*', (route) => route.abort());
    assert.ok(proxy.cutAll() >= 1, 'the event stream was open');
    await page.locator('.link-reconnecting').waitFor();
    stack.model.enqueue({ kind: 'reply', text: 'Said while you were away.' });
    const admitted = await stack.daemon.json('POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'From another client' }] });
    assert.equal(admitted.status, 202);
    for (;;) {
      const status = await stack.daemon.json('GET', `/session/${sessionId}/status`);
      if (!status.body.hasActivePrompt) break;
      await new Promise((r) => setImmediate(r));
    }
    await page.unroute('**/events*');
    await page.locator('.link-resynced').waitFor();
    await page.getByText('Said while you were away.').waitFor();
    assert.equal(await page.getByText('Said while you were away.').count(), 1, 'replayed once, not twice');
    // The cut stream and the refused reconnects are logged by the browser; nothing else may be.
    const caused = browser.problems.splice(seen);
    assert.deepEqual(caused.filter((p) => !/net::ERR_(INCOMPLETE_CHUNKED_ENCODING|FAILED)/.test(p)), []);
  });

  test('the session exports as HTML', async () => {
    const download = page.waitForEvent('download');
    await page.getByLabel('Export').selectOption('html');
    const file = await download;
    assert.match(file.suggestedFilename(), /\.html$/);
    const saved = join(dir, file.suggestedFilename());
    await file.saveAs(saved);
    assert.match(readFileSync(saved, 'utf8'), /From the second model\./);
  });

  test('the approval mode switches, a queued prompt is withdrawn, a rewind shows as a marker', async () => {
    await page.getByLabel('Approval mode').selectOption('yolo');
    await stack.model.enqueue(writeReply('unasked.txt', 'free\n'), { kind: 'reply', text: 'Written unasked.' });
    for (;;) {
      const status = await stack.daemon.json('GET', `/session/${sessionId}/status`);
      if (status.body.approvalMode === 'yolo') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await send('Write without asking');
    await page.getByText('Written unasked.').waitFor();
    assert.equal(readFileSync(join(stack.daemon.workspace, 'unasked.txt'), 'utf8'), 'free\n', 'yolo wrote without a vote');

    stack.model.enqueue({ kind: 'hang', text: 'Busy' });
    await send('Keep busy');
    await page.getByRole('button', { name: 'Cancel turn' }).waitFor();
    await send('Never run this');
    const queued = page.locator('.queue li', { hasText: 'Never run this' });
    await queued.waitFor();
    await queued.getByRole('button', { name: /Withdraw/ }).click();
    await page.locator('.queue').waitFor({ state: 'detached' });
    await page.locator('.note', { hasText: 'Withdrawn: Never run this' }).waitFor();
    assert.ok(await page.getByRole('button', { name: 'Cancel turn' }).isVisible(), 'the running turn goes on');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Cancel turn' }).waitFor({ state: 'detached' });
    assert.ok(!JSON.stringify(stack.model.requests.map((r) => r.body)).includes('Never run this'), 'the withdrawn prompt never reached the model');

    const before = await page.locator('.rewind').count();
    await send('/rewind');
    await page.locator('.rewind').nth(before).waitFor();
    assert.match(await page.locator('.rewind').nth(before).innerText(), /Rewound: 1 turn undone/);
  });

  test('a stored session can be removed from the list and brought back', async () => {
    const extra = await stack.daemon.json('POST', '/session', { sessionScope: 'thread' });
    const id: string = extra.body.sessionId;
    await stack.daemon.json('PATCH', `/session/${id}/metadata`, { displayName: 'Throwaway' });
    assert.equal((await stack.daemon.json('DELETE', `/session/${id}`)).status, 204);
    await page.reload();
    const row = page.locator('.sidebar li', { hasText: 'Throwaway' });
    await row.getByRole('button', { name: 'Remove from list' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Show removed sessions (1)' }).click();
    await row.getByRole('button', { name: 'Show in list' }).click();
    assert.equal(await page.getByRole('button', { name: /Show removed sessions/ }).count(), 0);
  });

  test('the file browser shows text highlighted and refuses a binary politely', async () => {
    await page.getByRole('link', { name: 'Files' }).click();
    await page.getByRole('button', { name: 'src/' }).click();
    await page.getByRole('button', { name: 'main.ts' }).click();
    await page.locator('.file-view .hljs-keyword', { hasText: 'export' }).waitFor();
    await browser.screenshot('files');
    await page.getByRole('button', { name: '..' }).click();
    await page.getByRole('button', { name: 'blob.bin' }).click();
    await page.locator('.file-view .refused').waitFor();
  });

  test('the workspace panel shows two tabs exchange a message and a connected example app with its catalog', async () => {
    const sender = await openTab(stack.daemon);
    const receiver = await openTab(stack.daemon);
    // The receiver reads its inbox itself, so the message waits there to be seen rather than starting a turn.
    assert.equal((await stack.daemon.json('PATCH', `/session/${receiver.sessionId}/module`, { delivery: 'inbox' })).status, 200);
    const sent = await askModule(sender.socket, { token: sender.token, op: 'send', tab: receiver.tab, text: 'Please review src/main.ts.', kind: 'task' });
    assert.equal(sent.ok, true, sent.text);
    notes = await startNotesApp(stack.daemon.url, await createAppToken(stack.daemon.home, 'notes', 'write'));

    await page.getByRole('link', { name: 'Workspace' }).click();
    const receiverCard = page.locator(`.tab-card[data-tab="${receiver.tab}"]`);
    await receiverCard.locator('.message.waiting', { hasText: 'Please review src/main.ts.' }).waitFor();
    assert.match(await receiverCard.innerText(), new RegExp(`from tab ${sender.tab}`));
    await page.locator(`.tab-card[data-tab="${sender.tab}"] .message.out`, { hasText: 'Please review src/main.ts.' }).waitFor();
    const app = page.locator('.app-card', { hasText: 'notes' });
    await app.locator('code', { hasText: 'notes.add' }).waitFor();
    assert.match(await app.innerText(), /connected/);
    assert.match(await app.innerText(), /notes\.list/);
    await browser.screenshot('workspace');
  });

  test('the new-session form starts a session on an external agent picked by name', async () => {
    await page.goto(`${stack.daemon.url}/#/`);
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByLabel('Agent').selectOption(TEST_AGENT_ID);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/#\/s\/[0-9a-f-]{36}$/);
    const id = /#\/s\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    await page.locator('.link-live').waitFor();
    const tabs = await stack.daemon.json('GET', `/workspace/${encodeURIComponent(stack.daemon.workspace)}/tabs?messages=0`);
    assert.equal(tabs.body.tabs.find((t: { sessionId: string }) => t.sessionId === id)?.harness, TEST_AGENT_ID);
  });

  test('a long transcript opens on a short newest page, pages older ones in at the top, each once, and keeps only a window of rows in the page', async () => {
    const long = await storeGeneratedSession(stack.daemon, 400); // 2,400 records
    const loadBody = page.waitForRequest((r) => r.url().endsWith(`/session/${long}/load`)).then((r) => r.postDataJSON());
    await page.goto(`${stack.daemon.url}/#/s/${long}`);
    const newest = page.getByText('generated answer 399', { exact: true });
    await newest.waitFor();
    const asked = (await loadBody).historyPageSize as number;
    assert.ok(asked > 0 && asked < 200, `the first load asks for ${asked} records`);
    // Short as it is, the first page overflows the view, so the reader can scroll up to page in more.
    const transcript = page.locator('.transcript');
    assert.ok(await transcript.evaluate((el) => el.scrollHeight > el.clientHeight + 200), 'the first page fills the view and more');
    // At the top, older pages come in until the first prompt. Two scroll events at once while a
    // page is on its way ask for it once.
    const pages: string[] = [];
    const pageAsked = (r: { url: () => string }) => void (r.url().includes(`/session/${long}/transcript?`) && pages.push(r.url()));
    page.on('request', pageAsked);
    const first = page.getByText('generated prompt 0', { exact: true });
    for (let i = 0; i < 30 && (await first.count()) === 0; i++) {
      const older = page.waitForResponse((r) => r.url().includes(`/session/${long}/transcript?`));
      await transcript.evaluate((el) => {
        el.scrollTop = 0;
        el.dispatchEvent(new Event('scroll'));
        el.dispatchEvent(new Event('scroll'));
      });
      await older;
      // The response is out before the app has read it and put its records in; a scroll until then is ignored.
      await page.locator('.transcript[aria-busy="false"]').waitFor();
    }
    page.off('request', pageAsked);
    await first.waitFor();
    assert.ok(pages.length >= 2, `${pages.length} older pages asked for`);
    assert.equal(new Set(pages).size, pages.length, `an older page asked for twice: ${pages.join(' ')}`);
    assert.equal(await first.count(), 1);
    // All 2,400 records in the model, a window of them in the page, moving as the reader scrolls.
    const rows = page.locator('.transcript > .row');
    assert.ok((await rows.count()) < 150, `${await rows.count()} rows in the page at the top`);
    await transcript.evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    assert.ok((await rows.count()) < 150);
    await transcript.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await newest.waitFor();
    assert.ok((await rows.count()) > 10 && (await rows.count()) < 150, `${await rows.count()} rows in the page at the bottom`);
    await transcript.evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    await newest.waitFor({ state: 'detached' });
  });

  test('the dark theme applies, and nothing broke the Content-Security-Policy or threw', async () => {
    await page.goto(`${stack.daemon.url}/#/s/${sessionId}`);
    await page.getByText('From the second model.').waitFor();
    await page.getByRole('button', { name: 'Toggle light or dark theme' }).click();
    // The page sets the theme once it has re-rendered: wait for it rather than read it at once.
    // A selector wait, not waitForFunction: a string predicate is evaluated with eval, which the page's CSP refuses.
    await page.locator('html[data-theme="dark"], html[data-theme="light"]').waitFor({ state: 'attached' });
    const theme = (await page.evaluate('document.documentElement.dataset.theme')) as string;
    await browser.screenshot(`session-${theme}`);
    assert.ok(theme === 'dark' || theme === 'light');
    // A phone-width screen: the panels stack and nothing needs sideways scrolling.
    await page.setViewportSize({ width: 390, height: 800 });
    await page.getByLabel('Prompt').waitFor();
    assert.ok((await page.evaluate('document.documentElement.scrollWidth')) as number <= 390, 'no sideways scrolling at 390 px');
    await browser.screenshot('session-phone');
    const unexpected = browser.problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|422)/.test(p));
    assert.deepEqual(unexpected, []);
    if (process.env.BERTH_UPDATE_SCREENSHOTS) {
      mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
      for (const name of ['permission', 'session-dark', 'files', 'workspace']) copyFileSync(join(browser.screenshotDir, `${name}.png`), join(DOCS_SCREENSHOTS, `web-${name}.png`));
    }
  });
});
