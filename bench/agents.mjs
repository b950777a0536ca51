// Benchmark "agents" (issue 12): Berth hosting `qwen --acp` as an external agent next to
// `qwen serve` 0.24.4, which runs the same qwen agent behind every session, on the same scripted
// model: the first session of a fresh daemon, the first turn, later turns, and the resident memory
// of each daemon's whole process tree with 1 and with 5 agent sessions.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBerth } from './berth.mjs';
import { startPeer } from './peer.mjs';
import { registerCleanup } from './lib/cleanup.mjs';
import { keepAliveClient } from './lib/http-client.mjs';
import { startModel } from './lib/model.mjs';
import { modelEnv } from './lib/model-ids.mjs';
import { qwenSettings } from './lib/qwen-settings.mjs';
import { ensurePeer } from './lib/peer-install.mjs';
import { treeRss } from './lib/proctree.mjs';
import { createSession, pause, promptTurn, subscribe, timeToHealth } from './lib/session-steps.mjs';
import { makeSmallWorkspace } from './lib/small-workspace.mjs';

export const name = 'agents';
export const description = 'Berth + qwen --acp vs qwen serve: first session, first and later turns, RSS with 1 and 5 agent sessions (issue 12)';

const PLANS = {
  full: { boots: 3, laterTurns: 5, memorySessions: 5 },
  quick: { boots: 1, laterTurns: 3, memorySessions: 5 },
};
/** As the sessions benchmark: let the tree settle before reading its memory. */
const SETTLE_MS = 1_500;
const STEP_GAP_MS = 25;
const PROMPT_TEXT = 'Say hello';

/** Berth with `qwen --acp` as its default agent: an `agents` entry in config.json and qwen's settings in the agent's private HOME. */
async function startBerthAgent({ workspace, scratch, modelUrl }) {
  const entry = await ensurePeer();
  const home = join(scratch, 'berth-home');
  mkdirSync(join(home, 'agents', 'qwen', 'home', '.qwen'), { recursive: true });
  writeFileSync(join(home, 'agents', 'qwen', 'home', '.qwen', 'settings.json'), JSON.stringify(qwenSettings(modelUrl)));
  const agents = [{ id: 'qwen', command: process.execPath, args: [entry, '--acp'], env: { ...modelEnv(modelUrl), LANG: 'C.UTF-8', NO_COLOR: '1', CI: '1' } }];
  writeFileSync(join(home, 'config.json'), JSON.stringify({ agents }));
  return startBerth({ workspace, scratch, modelUrl, extraArgs: ['--agent', 'qwen', '--agent-start-timeout-ms', '120000'] });
}

const DAEMONS = { peer: startPeer, berth: startBerthAgent };

async function boot(kind, modelUrl) {
  const scratch = mkdtempSync(join(tmpdir(), `berth-bench-agents-${kind}-`));
  const remove = () => rmSync(scratch, { recursive: true, force: true });
  const unregister = registerCleanup(remove);
  const workspace = join(scratch, 'ws');
  makeSmallWorkspace(workspace);
  const proc = await DAEMONS[kind]({ workspace, scratch, modelUrl });
  const client = keepAliveClient(proc.url);
  return {
    proc,
    client,
    async close() {
      client.close();
      await proc.stop();
      remove();
      unregister();
    },
  };
}

async function turns(daemon, sessionId, count) {
  const stream = await subscribe(daemon.proc.url, sessionId);
  const ms = [];
  try {
    for (let i = 0; i < count; i += 1) {
      await pause(STEP_GAP_MS);
      ms.push((await promptTurn(daemon.client, stream, sessionId, PROMPT_TEXT)).turnMs);
    }
  } finally {
    stream.close();
  }
  return ms;
}

async function measureBoot(daemon, plan) {
  await timeToHealth(daemon.client, daemon.proc.startedAt);
  const first = await createSession(daemon.client);
  const [firstTurn, ...later] = await turns(daemon, first.sessionId, 1 + plan.laterTurns);
  await pause(SETTLE_MS);
  const rss1 = treeRss(daemon.proc.pid).totalKiB;
  for (let i = 1; i < plan.memorySessions; i += 1) {
    const s = await createSession(daemon.client);
    await turns(daemon, s.sessionId, 1);
  }
  await pause(SETTLE_MS);
  const rssMany = treeRss(daemon.proc.pid).totalKiB;
  return { sessionFirstMs: first.ms, turnFirstMs: firstTurn, turnLaterMs: later, rss1KiB: rss1, rssManyKiB: rssMany };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function report(plan, results) {
  const rows = [
    ['first session (ms)', (r) => median(r.map((b) => b.sessionFirstMs))],
    ['first turn (ms)', (r) => median(r.map((b) => b.turnFirstMs))],
    ['later turn (ms)', (r) => median(r.flatMap((b) => b.turnLaterMs))],
    ['RSS, 1 session (MiB)', (r) => median(r.map((b) => b.rss1KiB)) / 1024],
    [`RSS, ${plan.memorySessions} sessions (MiB)`, (r) => median(r.map((b) => b.rssManyKiB)) / 1024],
  ];
  const lines = ['metric'.padEnd(26) + 'qwen serve'.padStart(12) + 'berth+qwen'.padStart(12) + 'ratio'.padStart(8)];
  const table = rows.map(([label, of]) => {
    const peer = of(results.peer);
    const berth = of(results.berth);
    lines.push(label.padEnd(26) + peer.toFixed(1).padStart(12) + berth.toFixed(1).padStart(12) + (berth / peer).toFixed(2).padStart(8));
    return { metric: label, peer, berth, ratio: berth / peer };
  });
  return { text: lines.join('\n'), json: { plan, table, boots: results } };
}

export async function run({ quick = false, log = console.error } = {}) {
  const plan = quick ? PLANS.quick : PLANS.full;
  await ensurePeer({ log });
  const model = await startModel();
  const results = { peer: [], berth: [] };
  try {
    for (let i = 0; i < plan.boots; i += 1) {
      for (const kind of i % 2 === 0 ? ['peer', 'berth'] : ['berth', 'peer']) {
        const daemon = await boot(kind, model.url);
        try {
          const r = await measureBoot(daemon, plan);
          results[kind].push(r);
          log(`bench: ${kind}: first session ${r.sessionFirstMs.toFixed(0)} ms, first turn ${r.turnFirstMs.toFixed(0)} ms, RSS ${(r.rss1KiB / 1024).toFixed(0)} / ${(r.rssManyKiB / 1024).toFixed(0)} MiB`);
        } finally {
          await daemon.close();
        }
      }
    }
  } finally {
    await model.close();
  }
  return report(plan, results);
}

