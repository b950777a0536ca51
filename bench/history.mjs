// Benchmark "history" (issue 4): what a session's history costs to keep and to bring back.
//
// 1. The same real history on both daemons: one session, N text turns through the scripted model
//    (instant reply "OK."), then the bytes its transcript takes on disk (Berth: SQLite pages in use,
//    after a WAL checkpoint; the peer: its JSONL chat files under HOME/.qwen) and the time of a cold
//    `POST /session/{id}/load` and `/resume` (the session closed before each, so every sample rebuilds
//    it from storage).
// 2. Berth alone at 10,000 records: a session written straight into its store in the shape real turns
//    take (prompt, thought, answer with usage, tool call, tool result, turn end), then the same cold
//    load and resume, a first and a backward transcript page, and a Markdown export. The peer's
//    transcript format is its own, so there is no like-for-like way to seed it with 10,000 records.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { berthDir, startBerth } from './berth.mjs';
import { startPeer } from './peer.mjs';
import { registerCleanup } from './lib/cleanup.mjs';
import { keepAliveClient } from './lib/http-client.mjs';
import { startModel } from './lib/model.mjs';
import { formatTable } from './lib/report.mjs';
import { createSession, pause, promptTurn, subscribe } from './lib/session-steps.mjs';
import { makeSmallWorkspace } from './lib/small-workspace.mjs';
import { round, summarize } from './lib/stats.mjs';

export const name = 'history';
export const description = 'transcript bytes per turn and per 1,000 records; cold load/resume of an N-turn session; a 10,000-record Berth session (issue 4)';

const PLANS = {
  full: { turns: 200, reps: 7, generatedRecords: 10_000 },
  quick: { turns: 20, reps: 3, generatedRecords: 10_000 },
};
/** Berth's recorder writes streamed text within 250 ms; storage is read after it settled. */
const SETTLE_MS = 500;

const DAEMONS = { peer: startPeer, berth: startBerth };

async function bootDaemon(kind, modelUrl) {
  const scratch = mkdtempSync(join(tmpdir(), `berth-bench-history-${kind}-`));
  const removeScratch = () => rmSync(scratch, { recursive: true, force: true });
  const unregister = registerCleanup(removeScratch);
  const workspace = join(scratch, 'ws');
  makeSmallWorkspace(workspace);
  const proc = await DAEMONS[kind]({ workspace, scratch, modelUrl });
  await proc.ready();
  const client = keepAliveClient(proc.url);
  return {
    kind,
    scratch,
    proc,
    client,
    async close() {
      client.close();
      await proc.stop();
      removeScratch();
      unregister();
    },
  };
}

/** Berth's store: SQLite pages in use after folding the WAL back in (what the history really occupies). */
function berthStoreBytes(scratch) {
  const db = new Database(join(scratch, 'berth-home', 'berth.db'));
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = db.pragma('page_size', { simple: true });
    const used = db.pragma('page_count', { simple: true }) - db.pragma('freelist_count', { simple: true });
    return used * pageSize;
  } finally {
    db.close();
  }
}

/** The peer's chat files for one session: every file under HOME/.qwen whose name holds the session id. */
function peerSessionFiles(scratch, sessionId) {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.includes(sessionId)) out.push(path);
    }
  };
  walk(join(scratch, 'peer-home', '.qwen'));
  return out;
}

const del = (url, sessionId) => fetch(`${url}/session/${sessionId}`, { method: 'DELETE' });

/** `reps` cold restores: close the session, then time the restore call (the answer checked every time). */
async function coldRestores(daemon, sessionId, action, reps) {
  const ms = [];
  let body;
  for (let i = 0; i < reps; i++) {
    await del(daemon.proc.url, sessionId);
    const res = await daemon.client.post(`/session/${sessionId}/${action}`, {});
    if (res.status !== 200) throw new Error(`${action} -> ${res.status}: ${res.body.toString().slice(0, 300)}`);
    body = JSON.parse(res.body.toString());
    if (body.attached !== false) throw new Error(`${action} attached to a live session; the sample would not be cold`);
    ms.push(res.ms);
  }
  await del(daemon.proc.url, sessionId);
  return { ...summarize(ms), replayed: Array.isArray(body.compactedReplay) ? body.compactedReplay.length : undefined };
}

async function timedGets(daemon, path, reps) {
  const ms = [];
  for (let i = 0; i < reps; i++) {
    const res = await daemon.client.get(path);
    if (res.status !== 200) throw new Error(`GET ${path} -> ${res.status}: ${res.body.toString().slice(0, 300)}`);
    ms.push(res.ms);
  }
  return summarize(ms);
}

/** Part 1 on one daemon: N real turns, the bytes they take, cold load and resume. */
async function realHistory(kind, modelUrl, plan, log) {
  const daemon = await bootDaemon(kind, modelUrl);
  try {
    const before = kind === 'berth' ? berthStoreBytes(daemon.scratch) : 0;
    const { sessionId } = await createSession(daemon.client);
    const stream = await subscribe(daemon.proc.url, sessionId);
    for (let k = 0; k < plan.turns; k++) await promptTurn(daemon.client, stream, sessionId, `Turn ${k}: please remember the number ${k * 7919}.`);
    stream.close();
    await pause(SETTLE_MS);
    let bytes;
    let records;
    if (kind === 'berth') {
      bytes = berthStoreBytes(daemon.scratch) - before;
      const db = new Database(join(daemon.scratch, 'berth-home', 'berth.db'), { readonly: true });
      records = db.prepare('SELECT COUNT(*) AS n FROM transcript WHERE session_id = ?').get(sessionId).n;
      db.close();
    } else {
      const files = peerSessionFiles(daemon.scratch, sessionId);
      bytes = files.reduce((n, f) => n + statSync(f).size, 0);
      records = undefined;
    }
    log(`${kind}: ${plan.turns} turns → ${bytes} bytes${records ? `, ${records} records` : ''}`);
    const load = await coldRestores(daemon, sessionId, 'load', plan.reps);
    const resume = await coldRestores(daemon, sessionId, 'resume', plan.reps);
    return { turns: plan.turns, bytes, records, bytesPerTurn: bytes / plan.turns, load, resume };
  } finally {
    await daemon.close();
  }
}

/** One generated turn in the shape (and roughly the sizes) a real tool-using turn is recorded in. */
export function generatedTurn(sessionId, n, at) {
  const promptId = randomUUID();
  const rec = (kind, data) => ({ sessionId, recordId: randomUUID(), kind, promptId, at: at++, data });
  const file = `line ${n}: ${'the quick brown fox jumps over the lazy dog '.repeat(30)}`;
  return [
    rec('user_prompt', { content: [{ type: 'text', text: `Please look at src/module-${n}.ts and tell me what the exported function does.` }] }),
    rec('agent_thought', { text: `I should read src/module-${n}.ts first. ${'Then explain it briefly. '.repeat(6)}` }),
    rec('agent_message', { text: `Reading src/module-${n}.ts.`, usage: { inputTokens: 2400 + n, outputTokens: 40, totalTokens: 2440 + n, thoughtTokens: 12, cachedReadTokens: 0 } }),
    rec('tool_call', { toolCallId: `call_${n}`, name: 'workspace_read', title: `Read src/module-${n}.ts`, kind: 'read', args: { path: `src/module-${n}.ts` }, locations: [] }),
    rec('tool_result', { toolCallId: `call_${n}`, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: file } }], rawOutput: { path: `src/module-${n}.ts`, content: file } }),
    rec('agent_message', { text: `The exported function in module ${n} ${'formats its input and returns it. '.repeat(8)}`, usage: { inputTokens: 3900 + n, outputTokens: 90, totalTokens: 3990 + n, thoughtTokens: 0, cachedReadTokens: 0 } }),
    rec('turn_end', { stopReason: 'end_turn' }),
  ];
}

/** Part 2: a Berth session of `generatedRecords` records, written through Berth's own repositories. */
async function generatedHistory(modelUrl, plan, log) {
  const daemon = await bootDaemon('berth', modelUrl);
  try {
    const dist = join(berthDir(), 'dist');
    const { SqliteTranscriptRepository } = await import(pathToFileURL(join(dist, 'store', 'repos', 'transcript.js')).href);
    const { SqliteSessionRepository } = await import(pathToFileURL(join(dist, 'store', 'repos', 'sessions.js')).href);
    const health = await daemon.client.json('/capabilities');
    const workspaceId = health.workspaces[0].id;
    const before = berthStoreBytes(daemon.scratch);
    const db = new Database(join(daemon.scratch, 'berth-home', 'berth.db'));
    const sessionId = randomUUID();
    const now = Date.now();
    await new SqliteSessionRepository(db).insert({
      id: sessionId, workspaceId, scope: 'thread', createdAt: now, updatedAt: now, displayName: null, titleSource: null, prs: [],
      modelId: null, approvalMode: 'default', sourceType: null, sourceId: null, worktree: null, branch: null, currentCwd: null,
      closedAt: now, closeReason: 'client_close',
    });
    const repo = new SqliteTranscriptRepository(db);
    let records = 0;
    for (let n = 0; records < plan.generatedRecords; n++) {
      const turn = generatedTurn(sessionId, n, now + records).slice(0, plan.generatedRecords - records);
      await repo.append(turn);
      records += turn.length;
    }
    db.close();
    const bytes = berthStoreBytes(daemon.scratch) - before;
    log(`berth: ${records} generated records → ${bytes} bytes`);
    const load = await coldRestores(daemon, sessionId, 'load', plan.reps);
    const resume = await coldRestores(daemon, sessionId, 'resume', plan.reps);
    const firstPage = await timedGets(daemon, `/session/${sessionId}/transcript?limit=100`, plan.reps);
    const newestPage = await timedGets(daemon, `/session/${sessionId}/transcript?direction=backward&limit=100`, plan.reps);
    const exportMd = await timedGets(daemon, `/session/${sessionId}/export?format=md`, plan.reps);
    return { records, bytes, bytesPer1000Records: (bytes / records) * 1000, load, resume, firstPage, newestPage, exportMd };
  } finally {
    await daemon.close();
  }
}

const ms = (s) => `${round(s.median)} (p90 ${round(s.p90)})`;
const kib = (b) => `${round(b / 1024)} KiB`;

export async function run({ quick = false, log = (line) => console.log(line) } = {}) {
  const plan = quick ? PLANS.quick : PLANS.full;
  const model = await startModel();
  try {
    const real = {};
    for (const kind of ['peer', 'berth']) real[kind] = await realHistory(kind, model.url, plan, log);
    const generated = await generatedHistory(model.url, plan, log);
    const text = [
      `Same history on both daemons: ${plan.turns} text turns, cold restores (session closed before each), ms median (p90), n=${plan.reps}`,
      formatTable(
        ['', 'qwen serve 0.24.4', 'berth', 'berth / peer'],
        [
          ['transcript bytes', kib(real.peer.bytes), kib(real.berth.bytes), round(real.berth.bytes / real.peer.bytes)],
          ['bytes per turn', round(real.peer.bytesPerTurn), round(real.berth.bytesPerTurn), round(real.berth.bytesPerTurn / real.peer.bytesPerTurn)],
          ['POST /load (cold)', ms(real.peer.load), ms(real.berth.load), round(real.berth.load.median / real.peer.load.median)],
          ['POST /resume (cold)', ms(real.peer.resume), ms(real.berth.resume), round(real.berth.resume.median / real.peer.resume.median)],
        ],
      ),
      '',
      `Berth, one session of ${generated.records} records (${kib(generated.bytes)}, ${round(generated.bytesPer1000Records / 1024)} KiB per 1,000 records; real text turns: ${round((real.berth.bytes / real.berth.records) * 1000 / 1024)} KiB per 1,000 records)`,
      formatTable(
        ['', 'ms median (p90)'],
        [
          ['POST /load (cold, 500-record window)', ms(generated.load)],
          ['POST /resume (cold)', ms(generated.resume)],
          ['GET /transcript first page (100)', ms(generated.firstPage)],
          ['GET /transcript newest page (100)', ms(generated.newestPage)],
          ['GET /export?format=md', ms(generated.exportMd)],
        ],
      ),
    ].join('\n');
    return { text, json: { plan, real, generated } };
  } finally {
    await model.close();
  }
}
