// Benchmark "web" (issue 13): how soon a browser shows a usable session view, and what it downloads.
//
// A Berth daemon (from its build, web app included) holds one stored session of 1,000 and one of
// 10,000 records, written straight into its store in the shape real turns take (bench/history.mjs).
// Headless Chromium (Debian's, driven by playwright-core) opens each session cold, N times:
// - Berth's web app at `/#/s/<id>` with the owner token in session storage;
// - the qwen Web Shell 0.24.4 (hosted statically, as qwen serve hosts it) at `/session/<id>?daemon=`
//   against the same Berth daemon: the same data and the same daemon, so the difference is the client.
// "Usable" is when the newest answer of the session is on screen (and, for Berth, the prompt box),
// read on an animation frame as the page's own performance.now() (time since navigation started).
// The Web Shell asks first whether to trust a daemon it has not seen: that click is inside its time.
// Assets: the gzip size of every JS and CSS file the page loaded, from a fresh profile.
// Not measured: the Web Shell against qwen serve on the same data — qwen's transcript format is its
// own, so there is no like-for-like way to seed it with 10,000 records (as in bench/history.mjs).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { chromium } from 'playwright-core';
import { berthDir, startBerth } from './berth.mjs';
import { generatedTurn } from './history.mjs';
import { registerCleanup } from './lib/cleanup.mjs';
import { keepAliveClient } from './lib/http-client.mjs';
import { startModel } from './lib/model.mjs';
import { ensurePeer } from './lib/peer-install.mjs';
import { formatTable } from './lib/report.mjs';
import { makeSmallWorkspace } from './lib/small-workspace.mjs';
import { round, summarize } from './lib/stats.mjs';

export const name = 'web';
export const description = 'navigation to a usable session view at 1,000 and 10,000 records, and JS+CSS gzip: Berth web app vs the qwen Web Shell (issue 13)';

const PLANS = { full: { reps: 7, sizes: [1_000, 10_000] }, quick: { reps: 3, sizes: [1_000, 10_000] } };
const CHROMIUM = process.env.BERTH_CHROMIUM ?? '/usr/bin/chromium';
const TOKEN = 'bench-web-token-0123456789abcdef';

/** Seeds a stored session of `count` records; returns its id and the text of its newest answer. */
async function seed(scratch, workspaceId, count) {
  const dist = join(berthDir(), 'dist');
  const { SqliteTranscriptRepository } = await import(pathToFileURL(join(dist, 'store', 'repos', 'transcript.js')).href);
  const { SqliteSessionRepository } = await import(pathToFileURL(join(dist, 'store', 'repos', 'sessions.js')).href);
  const db = new Database(join(scratch, 'berth-home', 'berth.db'));
  const sessionId = randomUUID();
  const now = Date.now();
  new SqliteSessionRepository(db).insert({
    id: sessionId, workspaceId, scope: 'thread', createdAt: now, updatedAt: now, displayName: `${count} records`, titleSource: null, prs: [],
    modelId: null, approvalMode: 'default', sourceType: null, sourceId: null, worktree: null, branch: null, currentCwd: null,
    closedAt: now, closeReason: 'client_close',
  });
  const repo = new SqliteTranscriptRepository(db);
  let records = 0;
  let lastAnswer = '';
  for (let n = 0; records < count; n++) {
    // Whole turns only, ending with an answer, so the newest answer is a known text.
    const turn = generatedTurn(sessionId, n, now + records);
    repo.append(turn);
    records += turn.length;
    lastAnswer = turn.filter((r) => r.kind === 'agent_message').at(-1).data.text;
  }
  db.close();
  return { sessionId, records, lastAnswer: lastAnswer.slice(0, 40) };
}

/** Serves a folder of built files (the Web Shell) with the single-page fallback. */
async function serveFolder(root) {
  const { createServer } = await import('node:http');
  const { readFileSync, statSync } = await import('node:fs');
  const { extname, normalize, sep } = await import('node:path');
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.wasm': 'application/wasm', '.webmanifest': 'application/manifest+json' };
  const server = createServer((req, res) => {
    let file = normalize(join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    if (!file.startsWith(root + sep)) file = join(root, 'index.html');
    try {
      if (!statSync(file).isFile()) file = join(root, 'index.html');
    } catch {
      file = join(root, 'index.html');
    }
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** One cold visit: a fresh context; `prepare` may set storage first. Returns ms to usable and the JS+CSS gzip bytes. */
async function visit(browser, url, prepare, usable) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const assets = [];
  page.on('response', async (r) => {
    if (/\.(js|css)(\?|$)/.test(r.url())) {
      try {
        assets.push(gzipSync(await r.body()).length);
      } catch {
        /* a body the page abandoned */
      }
    }
  });
  await prepare(page);
  await page.goto(url);
  const ms = await usable(page);
  await page.waitForLoadState('networkidle').catch(() => {});
  await context.close();
  return { ms, gzipBytes: assets.reduce((a, b) => a + b, 0), files: assets.length };
}

export async function run({ quick = false, log = (line) => console.log(line) } = {}) {
  if (!existsSync(CHROMIUM)) throw new Error(`bench web: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  if (!existsSync(join(berthDir(), 'dist', 'web', 'index.html'))) throw new Error('bench web: dist/web is missing; run `npm run build` first');
  const plan = quick ? PLANS.quick : PLANS.full;
  const shellDir = join(dirname(await ensurePeer({ log })), 'web-shell');
  const model = await startModel();
  const shell = await serveFolder(shellDir);
  const scratch = mkdtempSync(join(tmpdir(), 'berth-bench-web-'));
  const unregister = registerCleanup(() => rmSync(scratch, { recursive: true, force: true }));
  const workspace = join(scratch, 'ws');
  makeSmallWorkspace(workspace);
  const proc = await startBerth({ workspace, scratch, modelUrl: model.url, extraArgs: ['--allow-origin', shell.url] });
  await proc.ready();
  const client = keepAliveClient(proc.url);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const caps = await client.json('/capabilities');
    const results = {};
    for (const size of plan.sizes) {
      const s = await seed(scratch, caps.workspaces[0].id, size);
      log(`seeded ${s.records} records`);
      // Checked on every animation frame inside the page, which reports its own clock: Playwright's
      // own waits back off to half a second between checks and would blur the figure.
      const shownAt = (page, selector, text) =>
        page
          .waitForFunction(
            ([sel, txt]) => {
              const ok = [...document.querySelectorAll(sel)].some((e) => (e.textContent ?? '').includes(txt));
              return ok ? performance.now() : false;
            },
            [selector, text],
            { polling: 'raf', timeout: 120_000 },
          )
          .then((handle) => handle.jsonValue());
      const berthUsable = async (page) => {
        const ms = await shownAt(page, '.msg.agent', s.lastAnswer);
        await page.locator('.composer textarea').waitFor();
        return ms;
      };
      const shellUsable = async (page) => {
        await page.getByRole('button', { name: 'Connect' }).click({ timeout: 120_000 });
        return shownAt(page, 'main, body', s.lastAnswer);
      };
      const berthRuns = [];
      const shellRuns = [];
      for (let i = 0; i < plan.reps; i++) {
        berthRuns.push(await visit(browser, `${proc.url}/#/s/${s.sessionId}`, (p) => p.addInitScript(`sessionStorage.setItem('berth.token', '')`), berthUsable));
        shellRuns.push(await visit(browser, `${shell.url}/session/${s.sessionId}?daemon=${encodeURIComponent(proc.url)}`, async () => {}, shellUsable));
      }
      results[size] = { records: s.records, berth: summarize(berthRuns.map((r) => r.ms)), shell: summarize(shellRuns.map((r) => r.ms)), berthAssets: berthRuns[0], shellAssets: shellRuns[0] };
    }
    const ms = (x) => `${round(x.median)} (p90 ${round(x.p90)})`;
    const first = results[plan.sizes[0]];
    const text = [
      `Navigation to a usable session view, ms median (p90), n=${plan.reps}; both clients against the same Berth daemon and data`,
      formatTable(
        ['records', 'berth web app', 'qwen Web Shell 0.24.4', 'berth / shell'],
        plan.sizes.map((size) => [String(results[size].records), ms(results[size].berth), ms(results[size].shell), round(results[size].berth.median / results[size].shell.median)]),
      ),
      '',
      formatTable(
        ['', 'berth web app', 'qwen Web Shell 0.24.4', 'berth / shell'],
        [['JS+CSS loaded (gzip)', `${round(first.berthAssets.gzipBytes / 1024)} KiB in ${first.berthAssets.files} files`, `${round(first.shellAssets.gzipBytes / 1024)} KiB in ${first.shellAssets.files} files`, round(first.berthAssets.gzipBytes / first.shellAssets.gzipBytes)]],
      ),
      'Not measured: the Web Shell against qwen serve on the same data (qwen stores transcripts in its own format; see bench/history.mjs).',
    ].join('\n');
    return { text, json: { plan, results } };
  } finally {
    await browser.close();
    client.close();
    await proc.stop();
    await shell.close();
    await model.close();
    rmSync(scratch, { recursive: true, force: true });
    unregister();
  }
}
