// Benchmark "web" (issue 13): how soon a browser shows a usable session view, and what it downloads.
//
// A Berth daemon (from its build, web app included) holds one stored session of 1,000 and one of
// 10,000 records, written straight into its store in the shape real turns take (bench/history.mjs).
// Headless Chromium (Debian's, driven by playwright-core) opens each session cold, N times:
// - Berth's web app at `/#/s/<id>` with the owner token in session storage;
// - the qwen Web Shell 0.24.4 (hosted statically, as qwen serve hosts it) at `/session/<id>?daemon=`
//   against the same Berth daemon: the same data and the same daemon, so the difference is the client.
// - the same Web Shell against a real qwen serve 0.24.4 (started as bench/peer.mjs starts it, on the
//   same scripted model, `--allow-origin` the shell's host) holding a session of about as many
//   records in its own chat file: two real text turns written by qwen serve, then its last turn
//   repeated with fresh ids in one parent chain and Berth's prompt and answer texts (seedPeer below),
//   checked by a cold load of the session through qwen serve before any visit.
// "Usable" is when the newest answer of the session is on screen (and, for Berth, the prompt box),
// read on an animation frame as the page's own performance.now() (time since navigation started).
// The Web Shell asks first whether to trust a daemon it has not seen: that click is inside its time.
// Assets: the gzip size of every JS and CSS file the page loaded, from a fresh profile.
// Where the data differ: Berth's turns are tool-using (prompt, thought, message, tool call, tool
// result, answer, turn end: 7 records); qwen's are text turns (prompt, answer and four bookkeeping
// records qwen writes per turn: 6 lines), because the turn repeated is one of the two real text
// turns qwen wrote. Records are counted as Berth's transcript rows and as lines of qwen's chat file.
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { chromium } from 'playwright-core';
import { berthDir, startBerth } from './berth.mjs';
import { generatedTurn } from './history.mjs';
import { startPeer } from './peer.mjs';
import { registerCleanup } from './lib/cleanup.mjs';
import { keepAliveClient } from './lib/http-client.mjs';
import { startModel } from './lib/model.mjs';
import { ensurePeer } from './lib/peer-install.mjs';
import { formatTable } from './lib/report.mjs';
import { createSession, pause, promptTurn, subscribe } from './lib/session-steps.mjs';
import { makeSmallWorkspace } from './lib/small-workspace.mjs';
import { watchUsable } from './lib/usable-frame.mjs';
import { round, summarize } from './lib/stats.mjs';

export const name = 'web';
export const description = 'navigation to a usable session view at 1,000 and 10,000 records, and JS+CSS gzip: Berth web app vs the qwen Web Shell, on Berth and on qwen serve (issue 13)';

const PLANS = { full: { reps: 7, sizes: [1_000, 10_000] }, quick: { reps: 3, sizes: [1_000, 10_000] } };
const CHROMIUM = process.env.BERTH_CHROMIUM ?? '/usr/bin/chromium';
const TOKEN = 'bench-web-token-0123456789abcdef';

/** Seeds a stored session of `count` records; returns its id and the text of its newest answer. */
export async function seed(scratch, workspaceId, count) {
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

/** The peer's chat file for a session: HOME/.qwen/projects/<workspace>/chats/<id>.jsonl. */
function peerChatFile(scratch, sessionId) {
  const projects = join(scratch, 'peer-home', '.qwen', 'projects');
  for (const project of readdirSync(projects)) {
    const file = join(projects, project, 'chats', `${sessionId}.jsonl`);
    if (existsSync(file)) return file;
  }
  throw new Error(`bench web: qwen serve wrote no chat file for session ${sessionId}`);
}

/**
 * Seeds a qwen serve session of about `count` records (lines of its chat file): two real text turns
 * through the scripted model, so qwen writes the file itself, then the session is closed and its last
 * turn (user message, file-history snapshot, API telemetry, answer, branch checkpoint, turn result)
 * is repeated with fresh uuids, prompt ids and timestamps, each record's parentUuid the one before
 * it, cross-references (checkpoint, turn result, telemetry, snapshot) pointing inside the new turn,
 * and a matching pair of prompt-ledger lines per turn. The prompt and answer texts are those of
 * Berth's generated turns (bench/history.mjs), so the newest answer is a known text. A cold
 * `POST /session/{id}/load` must then replay one prompt and one answer per turn, the newest answer
 * last, or the bench stops: qwen serve reads the file as its own.
 */
async function seedPeer(peer, count) {
  const { sessionId } = await createSession(peer.client);
  const stream = await subscribe(peer.proc.url, sessionId);
  for (let k = 0; k < 2; k++) await promptTurn(peer.client, stream, sessionId, `Turn ${k}: please remember the number ${k * 7919}.`);
  stream.close();
  await pause(500);
  await fetch(`${peer.proc.url}/session/${sessionId}`, { method: 'DELETE' });
  await pause(200);
  const file = peerChatFile(peer.scratch, sessionId);
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const start = lines.findLastIndex((r) => r.type === 'user');
  const template = lines.slice(start);
  const kinds = template.map((r) => (r.type === 'system' ? r.subtype : r.type)).join(',');
  if (kinds !== 'user,file_history_snapshot,ui_telemetry,assistant,branch_checkpoint,turn_result') throw new Error(`bench web: qwen's turn records changed shape: ${kinds}`);
  let parent = lines.at(-1).uuid;
  let records = lines.length;
  let at = Date.parse(lines.at(-1).timestamp) + 1;
  let lastAnswer = '';
  const out = [];
  const ledger = [];
  for (let n = 0; records + template.length <= count; n++) {
    const berthTurn = generatedTurn(sessionId, n, at);
    const prompt = berthTurn[0].data.content[0].text;
    const answer = berthTurn.findLast((r) => r.kind === 'agent_message').data.text;
    const promptId = randomUUID();
    const startedAt = at;
    const turnStart = parent;
    const turn = template.map((r) => ({ ...structuredClone(r), uuid: randomUUID() }));
    for (const r of turn) {
      r.parentUuid = parent;
      parent = r.uuid;
      r.timestamp = new Date(at++).toISOString();
    }
    const [user, snapshot, telemetry, assistant, checkpoint, result] = turn;
    user.daemonPromptId = promptId;
    user.message = { role: 'user', parts: [{ text: prompt }] };
    const turnNo = Math.floor(records / template.length) + 1;
    snapshot.systemPayload.snapshots = snapshot.systemPayload.snapshots.map((s) => ({ ...s, promptId: `${sessionId}########${turnNo}`, timestamp: snapshot.timestamp }));
    telemetry.systemPayload.uiEvent = { ...telemetry.systemPayload.uiEvent, 'event.timestamp': telemetry.timestamp, response_id: `chatcmpl-seeded-${n}`, response_text: answer, prompt_id: `${sessionId}########${turnNo}` };
    assistant.message = { role: 'model', parts: [{ text: answer }] };
    checkpoint.systemPayload = { ...checkpoint.systemPayload, startExclusiveRecordUuid: turnStart, assistantRecordUuid: assistant.uuid };
    result.systemPayload = { ...result.systemPayload, promptId, startedAt, endedAt: at, promptText: prompt, resultText: answer };
    ledger.push({ v: 1, promptId, state: 'in_flight', tailUuid: turnStart, at: startedAt }, { v: 1, promptId, terminal: 'completed', stopReason: 'end_turn', at });
    out.push(...turn);
    records += turn.length;
    lastAnswer = answer;
  }
  appendFileSync(file, out.map((r) => JSON.stringify(r) + '\n').join(''));
  appendFileSync(file.replace(/\.jsonl$/, '.ledger.jsonl'), ledger.map((r) => JSON.stringify(r) + '\n').join(''));
  // What qwen serve itself brings back from the file: a cold load must replay every message.
  const res = await peer.client.post(`/session/${sessionId}/load`, {});
  if (res.status !== 200) throw new Error(`bench web: qwen serve load -> ${res.status}: ${res.body.toString().slice(0, 300)}`);
  const body = JSON.parse(res.body.toString());
  const updates = (body.compactedReplay ?? []).map((e) => e.data?.update ?? {});
  const prompts = updates.filter((u) => u.sessionUpdate === 'user_message_chunk').length;
  const answers = updates.filter((u) => u.sessionUpdate === 'agent_message_chunk' && u.content?.text);
  if (prompts !== records / template.length || answers.length !== prompts || !answers.at(-1)?.content.text.startsWith(lastAnswer)) {
    throw new Error(`bench web: qwen serve loaded ${prompts} prompts of ${records / template.length} turns from the seeded file, newest answer ${JSON.stringify(answers.at(-1)?.content.text.slice(0, 60))}`);
  }
  await fetch(`${peer.proc.url}/session/${sessionId}`, { method: 'DELETE' });
  return { sessionId, records, turns: records / template.length, lastAnswer: lastAnswer.slice(0, 40) };
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

/**
 * One cold visit: a fresh context; `prepare` may set storage first and returns the watch that
 * `usable` awaits. Returns ms to usable and the JS+CSS gzip bytes.
 */
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
  const { shown } = await prepare(page);
  await page.goto(url);
  const ms = await usable(page, shown);
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
  const peerWorkspace = join(scratch, 'peer-ws');
  makeSmallWorkspace(peerWorkspace);
  const peerProc = await startPeer({ workspace: peerWorkspace, scratch, modelUrl: model.url, extraArgs: ['--allow-origin', shell.url] });
  await peerProc.ready();
  const peer = { proc: peerProc, scratch, client: keepAliveClient(peerProc.url) };
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const caps = await client.json('/capabilities');
    const results = {};
    for (const size of plan.sizes) {
      const s = await seed(scratch, caps.workspaces[0].id, size);
      const p = await seedPeer(peer, size);
      log(`seeded ${s.records} records in Berth, ${p.records} (${p.turns} turns) in qwen serve`);
      // "Usable": the first frame showing the newest answer (for Berth, with the prompt box), read
      // inside the page (bench/lib/usable-frame.mjs).
      const watch = (selector, text, also) => (page) => watchUsable(page, { selector, text, also });
      const berthUsable = (_page, shown) => shown;
      const shellUsable = async (page, shown) => {
        await page.getByRole('button', { name: 'Connect' }).click({ timeout: 120_000 });
        return shown;
      };
      const berthRuns = [];
      const shellRuns = [];
      const peerRuns = [];
      for (let i = 0; i < plan.reps; i++) {
        const berthPrepare = async (page) => {
          await page.addInitScript(`sessionStorage.setItem('berth.token', '')`);
          return watch('.msg.agent', s.lastAnswer, '.composer textarea')(page);
        };
        berthRuns.push(await visit(browser, `${proc.url}/#/s/${s.sessionId}`, berthPrepare, berthUsable));
        shellRuns.push(await visit(browser, `${shell.url}/session/${s.sessionId}?daemon=${encodeURIComponent(proc.url)}`, watch('main, body', s.lastAnswer), shellUsable));
        peerRuns.push(await visit(browser, `${shell.url}/session/${p.sessionId}?daemon=${encodeURIComponent(peerProc.url)}`, watch('main, body', p.lastAnswer), shellUsable));
      }
      results[size] = { records: s.records, berth: summarize(berthRuns.map((r) => r.ms)), shell: summarize(shellRuns.map((r) => r.ms)), berthAssets: berthRuns[0], shellAssets: shellRuns[0], peer: { records: p.records, turns: p.turns, ...summarize(peerRuns.map((r) => r.ms)) }, peerAssets: peerRuns[0] };
    }
    const ms = (x) => `${round(x.median)} (p90 ${round(x.p90)})`;
    const first = results[plan.sizes[0]];
    const text = [
      `Navigation to a usable session view, ms median (p90), n=${plan.reps}; berth and shell: the same Berth daemon and data; shell / qwen serve: the Web Shell against qwen serve 0.24.4 on its own chat file of about as many records (text turns)`,
      formatTable(
        ['records', 'berth web app', 'qwen Web Shell 0.24.4', 'berth / shell', 'shell / qwen serve', 'berth / (shell / qwen serve)'],
        plan.sizes.map((size) => {
          const r = results[size];
          return [String(r.records), ms(r.berth), ms(r.shell), round(r.berth.median / r.shell.median), `${ms(r.peer)} [${r.peer.records}]`, round(r.berth.median / r.peer.median)];
        }),
      ),
      '',
      formatTable(
        ['', 'berth web app', 'qwen Web Shell 0.24.4', 'berth / shell', 'shell / qwen serve'],
        [['JS+CSS loaded (gzip)', `${round(first.berthAssets.gzipBytes / 1024)} KiB in ${first.berthAssets.files} files`, `${round(first.shellAssets.gzipBytes / 1024)} KiB in ${first.shellAssets.files} files`, round(first.berthAssets.gzipBytes / first.shellAssets.gzipBytes), `${round(first.peerAssets.gzipBytes / 1024)} KiB in ${first.peerAssets.files} files`]],
      ),
      `[n] in the qwen serve column: lines of qwen's chat file (${plan.sizes.map((size) => results[size].peer.turns).join(' and ')} text turns of 6 records each; Berth's sessions are tool-using turns of 7 records).`,
    ].join('\n');
    return { text, json: { plan, results } };
  } finally {
    await browser.close();
    client.close();
    peer.client.close();
    await peerProc.stop();
    await proc.stop();
    await shell.close();
    await model.close();
    rmSync(scratch, { recursive: true, force: true });
    unregister();
  }
}
