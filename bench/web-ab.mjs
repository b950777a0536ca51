// A/B of two built Berth checkouts on the web bench's figure: navigation to a usable session view
// (the newest answer on screen and the prompt box there), for stored sessions of 1,000 and 10,000
// records. Each checkout runs its own daemon (own home, the same seeded records); visits alternate
// between them, the order flipping round by round, so a machine shared with other work loads both
// sides alike. The first visit of each session (the cold load of a stored session) is not counted:
// the web bench's median is a visit to the live session.
//
//   node bench/web-ab.mjs <checkoutA> <checkoutB> [rounds] [--trace <folder>]
//
// A checkout is a folder with a built dist/ (web app included). Per visit the page's own resource
// timings give the breakdown: when the entry script, the app chunk and the load's answer arrived.
// `--trace` also writes one Chrome trace per side and size (devtools.timeline) for a closer look.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startBerth } from './berth.mjs';
import { registerCleanup } from './lib/cleanup.mjs';
import { keepAliveClient } from './lib/http-client.mjs';
import { startModel } from './lib/model.mjs';
import { makeSmallWorkspace } from './lib/small-workspace.mjs';
import { round, summarize } from './lib/stats.mjs';
import { watchUsable } from './lib/usable-frame.mjs';
import { seed } from './web.mjs';

const CHROMIUM = process.env.BERTH_CHROMIUM ?? '/usr/bin/chromium';
const SIZES = [1_000, 10_000];

/** Starts a daemon from `dir` and seeds one session per size into its store. */
async function side(label, dir, modelUrl) {
  process.env.BERTH_BENCH_BERTH_DIR = dir;
  const scratch = mkdtempSync(join(tmpdir(), `berth-web-ab-${label}-`));
  const workspace = join(scratch, 'ws');
  makeSmallWorkspace(workspace);
  const proc = await startBerth({ workspace, scratch, modelUrl });
  await proc.ready();
  const client = keepAliveClient(proc.url);
  const caps = await client.json('/capabilities');
  const sessions = {};
  for (const size of SIZES) sessions[size] = await seed(scratch, caps.workspaces[0].id, size);
  client.close();
  return { label, dir, proc, scratch, sessions };
}

/** What the page's resource timings say about one visit, ms since navigation. */
function breakdownInPage() {
  const at = (re) => performance.getEntriesByType('resource').find((e) => re.test(e.name));
  const nav = performance.getEntriesByType('navigation')[0];
  const r = (e, f) => (e ? Math.round(e[f]) : null);
  const entry = at(/\/assets\/index-.*\.js$/);
  const mount = at(/\/assets\/mount-.*\.js$/);
  const load = at(/\/load$/);
  const caps = at(/\/capabilities$/);
  return {
    html: r(nav, 'responseEnd'),
    entry: r(entry, 'responseEnd'),
    mount: r(mount, 'responseEnd'),
    loadStart: r(load, 'startTime'),
    loadFirstByte: r(load, 'responseStart'),
    loadEnd: r(load, 'responseEnd'),
    caps: r(caps, 'responseEnd'),
  };
}

async function visit(browser, s, size, trace) {
  const { sessionId, lastAnswer } = s.sessions[size];
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.addInitScript(`sessionStorage.setItem('berth.token', '')`);
  const { shown } = await watchUsable(page, { selector: '.msg.agent', text: lastAnswer, also: '.composer textarea' });
  if (trace) await browser.startTracing(page, { path: trace, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink.user_timing', 'loading'] });
  await page.goto(`${s.proc.url}/#/s/${sessionId}`);
  const at = Math.round(await shown);
  const b = { ...(await page.evaluate(breakdownInPage)), shown: at };
  if (trace) await browser.stopTracing();
  // No wait for network idle: the page's event stream stays open, so it would only time out.
  await context.close();
  return b;
}

async function main(argv) {
  const traceAt = argv.indexOf('--trace');
  const traceDir = traceAt >= 0 ? argv.splice(traceAt, 2)[1] : null;
  const [dirA, dirB, rounds = '7'] = argv;
  if (!dirA || !dirB) throw new Error('usage: node bench/web-ab.mjs <checkoutA> <checkoutB> [rounds] [--trace <folder>]');
  const model = await startModel();
  const sides = [];
  const unregister = registerCleanup(async () => {
    for (const s of sides) await s.proc.stop();
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    sides.push(await side('A', dirA, model.url), await side('B', dirB, model.url));
    // The cold load of each stored session, not counted (the bench's median visits a live session).
    for (const s of sides) for (const size of SIZES) await visit(browser, s, size, null);
    if (traceDir) {
      mkdirSync(traceDir, { recursive: true });
      for (const s of sides) for (const size of SIZES) await visit(browser, s, size, join(traceDir, `${s.label}-${size}.json`));
    }
    const samples = new Map(sides.map((s) => [s.label, Object.fromEntries(SIZES.map((n) => [n, []]))]));
    const loads = [];
    for (let r = 0; r < Number(rounds); r++) {
      const order = r % 2 === 0 ? sides : [...sides].reverse();
      for (const size of SIZES) for (const s of order) samples.get(s.label)[size].push(await visit(browser, s, size, null));
      loads.push(loadavg()[0].toFixed(2));
      console.error(`round ${r + 1}/${rounds}, load ${loads.at(-1)}`);
    }
    console.log(`A = ${dirA}\nB = ${dirB}\n1-minute load per round: ${loads.join(' ')}`);
    const fields = ['html', 'entry', 'mount', 'loadStart', 'loadFirstByte', 'loadEnd', 'caps', 'shown'];
    console.log(`size   side  usable median (p10-p90)   medians of: ${fields.join(' ')}`);
    for (const size of SIZES) {
      for (const s of sides) {
        const runs = samples.get(s.label)[size];
        const u = summarize(runs.map((x) => x.shown));
        const parts = fields.map((f) => round(summarize(runs.map((x) => x[f]).filter((x) => x !== null)).median));
        console.log(`${String(size).padEnd(6)} ${s.label}     ${round(u.median)} (${round(u.p10)}-${round(u.p90)})   ${parts.join(' ')}`);
      }
    }
    writeFileSync(join(tmpdir(), `berth-web-ab-${Date.now()}.json`), JSON.stringify({ dirA, dirB, loads, samples: Object.fromEntries(samples) }));
  } finally {
    await browser.close();
    for (const s of sides) {
      await s.proc.stop();
      rmSync(s.scratch, { recursive: true, force: true });
    }
    unregister();
    await model.close();
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
