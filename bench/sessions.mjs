// Benchmark "sessions" (issue 3): daemon start → /health, POST /session (first and later), prompt
// admission, prompt → turn_complete (first and later turns of a session) on an instant scripted
// model, and resident memory of the whole process tree idle, with 1 and with 20 live sessions —
// Berth next to qwen serve 0.24.4, measured as shared/reference/qwen-serve/BASELINE.md did, and
// next to the floor daemon (bench/floor/server.mjs: the same routes as directly as Node can).
//
// Unlike `reads`, every boot is a fresh daemon on a fresh HOME and workspace (start-up and the
// first session are per-boot numbers), one daemon alive at a time, the boot order rotating so
// that no daemon always goes first. One scripted model serves every boot.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBerth } from './berth.mjs';
import { startFloor } from './floor.mjs';
import { startPeer } from './peer.mjs';
import { registerCleanup } from './lib/cleanup.mjs';
import { keepAliveClient } from './lib/http-client.mjs';
import { startModel } from './lib/model.mjs';
import { treeRss } from './lib/proctree.mjs';
import { createSession, pause, promptTurn, subscribe, timeToDeepHealth, timeToHealth } from './lib/session-steps.mjs';
import { reportSessions } from './lib/sessions-report.mjs';
import { makeSmallWorkspace } from './lib/small-workspace.mjs';

export const name = 'sessions';
export const description = 'start → /health, POST /session, prompt admission, turns, RSS with 1 and 20 sessions (issue 3)';

/**
 * Boots per daemon and work per boot. A timing boot: /health, the first session right after it,
 * `laterSessions` more, a first turn in each, `laterTurns` more turns in one of them (BASELINE.md
 * took 5 sessions, 5 first and 3 later turns per boot). A memory boot: idle, then sessions one
 * by one, each with one completed turn and its stream closed, up to `memorySessions`.
 */
const PLANS = {
  full: { timingBoots: 6, memoryBoots: 3, laterSessions: 5, laterTurns: 10, memorySessions: 20 },
  quick: { timingBoots: 2, memoryBoots: 1, laterSessions: 3, laterTurns: 3, memorySessions: 20 },
};
/** BASELINE.md: idle RSS "3 s after deep health ok"; after sessions "SSE closed, 1.5 s settle". */
const IDLE_SETTLE_MS = 3_000;
const SESSIONS_SETTLE_MS = 1_500;
/** A breath between measured requests, so one step's after-work (transcript writes) is not billed to the next. */
const STEP_GAP_MS = 25;
const PROMPT_TEXT = 'Say hello';

const DAEMONS = { peer: startPeer, berth: startBerth, floor: startFloor };

/** A fresh scratch folder (HOME + workspace) and daemon; `close()` stops it and removes the folder. */
async function bootDaemon(kind, { modelUrl, profileDir }) {
  const scratch = mkdtempSync(join(tmpdir(), `berth-bench-${kind}-`));
  const removeScratch = () => rmSync(scratch, { recursive: true, force: true });
  const unregister = registerCleanup(removeScratch);
  const workspace = join(scratch, 'ws');
  makeSmallWorkspace(workspace);
  const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', join(profileDir, kind)] : [];
  let proc;
  try {
    proc = await DAEMONS[kind]({ workspace, scratch, modelUrl, nodeArgs });
  } catch (error) {
    removeScratch();
    unregister();
    throw error;
  }
  const client = keepAliveClient(proc.url);
  let closing;
  const close = () =>
    (closing ??= (async () => {
      client.close();
      await proc.stop();
      removeScratch();
      unregister();
    })());
  return { proc, client, close };
}

/** One session's first turn on a fresh stream, then `extra` later turns on the same stream. */
async function turnsInSession(daemon, sessionId, extra, out) {
  const stream = await subscribe(daemon.proc.url, sessionId);
  try {
    for (let i = 0; i <= extra; i += 1) {
      await pause(STEP_GAP_MS);
      const t = await promptTurn(daemon.client, stream, sessionId, PROMPT_TEXT);
      out.admitMs.push(t.admitMs);
      (i === 0 ? out.turnFirstMs : out.turnLaterMs).push(t.turnMs);
      out.replies.add(t.reply);
    }
  } finally {
    stream.close();
  }
}

async function timingBoot(daemon, plan) {
  const { proc, client } = daemon;
  const healthMs = await timeToHealth(client, proc.startedAt);
  const first = await createSession(client);
  const deepOkMs = await timeToDeepHealth(client, proc.startedAt);
  const out = { admitMs: [], turnFirstMs: [], turnLaterMs: [], replies: new Set() };
  const later = [];
  for (let i = 0; i < plan.laterSessions; i += 1) {
    await pause(STEP_GAP_MS);
    later.push(await createSession(client));
  }
  for (const [i, s] of later.entries()) await turnsInSession(daemon, s.sessionId, i === 0 ? plan.laterTurns : 0, out);
  return {
    listenMs: proc.listenMs,
    healthMs,
    deepOkMs,
    sessionFirstMs: first.ms,
    sessionLaterMs: later.map((s) => s.ms),
    admitMs: out.admitMs,
    turnFirstMs: out.turnFirstMs,
    turnLaterMs: out.turnLaterMs,
    replies: [...out.replies],
  };
}

async function memoryBoot(daemon, plan) {
  const { proc, client } = daemon;
  const healthMs = await timeToHealth(client, proc.startedAt);
  await timeToDeepHealth(client, proc.startedAt);
  await pause(IDLE_SETTLE_MS);
  const rssIdle = treeRss(proc.pid);
  const out = { admitMs: [], turnFirstMs: [], turnLaterMs: [], replies: new Set() };
  let rss1 = null;
  for (let i = 0; i < plan.memorySessions; i += 1) {
    const s = await createSession(client);
    await turnsInSession(daemon, s.sessionId, 0, out);
    if (i === 0) {
      await pause(SESSIONS_SETTLE_MS);
      rss1 = treeRss(proc.pid);
    }
  }
  await pause(SESSIONS_SETTLE_MS);
  const rssMany = treeRss(proc.pid);
  const deep = JSON.parse((await client.get('/health?deep=1')).body.toString('utf8'));
  return { healthMs, rssIdle, rss1, rssMany, liveSessions: deep.sessions ?? null, replies: [...out.replies] };
}

/** The boot order of round i, rotating and reversing: no daemon always goes first on a warming machine. */
function order(i) {
  const kinds = Object.keys(DAEMONS);
  const rotated = [...kinds.slice(i % kinds.length), ...kinds.slice(0, i % kinds.length)];
  return Math.floor(i / kinds.length) % 2 === 0 ? rotated : rotated.reverse();
}

/** Runs the benchmark; `quick` shrinks boots and counts for a smoke run; `profileDir` gets each boot's CPU profile. */
export async function run({ quick = false, profileDir, log = console.error } = {}) {
  const plan = quick ? PLANS.quick : PLANS.full;
  // The model process is stopped on Ctrl-C by daemon-process's own cleanup, like the daemons.
  const model = await startModel();
  log(`bench: scripted model at ${model.url}`);
  const boots = Object.fromEntries(Object.keys(DAEMONS).map((kind) => [kind, { timing: [], memory: [] }]));
  const loads = [];
  const measure = async (kind, phase, fn) => {
    const daemon = await bootDaemon(kind, { modelUrl: model.url, profileDir });
    try {
      const result = await fn(daemon, plan);
      boots[kind][phase].push(result);
      loads.push(loadNow());
      log(`bench: ${phase} boot of ${kind}: ${summaryLine(phase, result)}`);
    } finally {
      await daemon.close();
    }
  };
  try {
    for (let i = 0; i < plan.timingBoots; i += 1) for (const kind of order(i)) await measure(kind, 'timing', timingBoot);
    for (let i = 0; i < plan.memoryBoots; i += 1) for (const kind of order(i)) await measure(kind, 'memory', memoryBoot);
  } finally {
    await model.close();
  }
  return reportSessions({ plan, boots, loads, settle: { idleMs: IDLE_SETTLE_MS, sessionsMs: SESSIONS_SETTLE_MS, stepGapMs: STEP_GAP_MS } });
}

/** The 1-minute load average after each boot: a busy machine shows up next to its numbers. */
function loadNow() {
  return Number(loadavg()[0].toFixed(2));
}

function summaryLine(phase, r) {
  const f = (v) => v.toFixed(1);
  if (phase === 'timing') {
    const med = (xs) => f([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
    return `health ${f(r.healthMs)} ms, first session ${f(r.sessionFirstMs)} ms, later ${med(r.sessionLaterMs)}, first turn ${med(r.turnFirstMs)}, later turn ${med(r.turnLaterMs)}`;
  }
  const mib = (x) => (x.totalKiB / 1024).toFixed(0);
  return `RSS idle ${mib(r.rssIdle)} MiB, 1 session ${mib(r.rss1)}, ${r.liveSessions ?? '?'} sessions ${mib(r.rssMany)}`;
}
