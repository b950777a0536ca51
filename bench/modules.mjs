// `modules` — the module protocol's workspace socket (seed 004, issue 6). Berth only: the peer has no
// module socket. The daemon is Berth started in this process from dist/; every question is a fresh
// Unix-socket connection (one line in, one line out, close), as a tab's helper asks it, through
// dist/modules/client.js. Rows:
//   send — a message to a tab that reads its own inbox: parse, token, rules, the inbox row (SQLite
//          WAL), the sender's module_message event and transcript record;
//   list — the asking tab and the 7 other tabs with their waiting counts (measured first, among 8 tabs).
// Latency: one question at a time (median, p90, p99). Throughput: 8 clients at once, operations per
// second. A tab may send only 5 messages a minute (the pace rule), so sends rotate over enough
// sender tabs that the rule never refuses one; every answer is checked to be ok.
//
//   npm run build && node bench/modules.mjs [--quick]     (or: npm run bench -- modules)
import { join } from 'node:path';
import { fromDist, startInProcessBerth } from './lib/in-process-berth.mjs';
import { formatTable } from './lib/report.mjs';
import { measureLatency, measureThroughput } from './lib/round-trips.mjs';
import { isMain, runStandalone } from './lib/standalone.mjs';
import { round, roundNumbers } from './lib/stats.mjs';

export const name = 'modules';
export const description = 'module protocol on the workspace Unix socket: send and list round trips, ops/s from 8 clients';

/** Seed 004's pace rule: a tab sends at most this many messages a minute, so each sender tab is used this often. */
const SENDS_PER_TAB = 5;
const CLIENTS = 8;

export async function run({ quick = false } = {}) {
  const samples = quick ? 100 : 1000;
  const warmup = quick ? 20 : 100;
  const throughputOps = quick ? 400 : 4000;
  const { askModule } = await fromDist('modules/client.js');
  const berth = await startInProcessBerth('modules', (scratch) => ({
    home: join(scratch, 'home'),
    workspaces: [join(scratch, 'workspace')],
    sessionIdleTimeoutMs: 0,
  }));
  const { daemon } = berth;
  try {
    const { sessions, messaging } = daemon.core;
    const socket = messaging.socketPath(daemon.core.workspaces.primary().id);
    const openTab = async () => {
      const { session } = await sessions.create({ sessionScope: 'thread' }, undefined);
      return { sessionId: session.id, tab: messaging.tab(session.id).tab, token: await messaging.issueToken(session.id) };
    };
    // `list` first, among 8 tabs (one per client), before the sender tabs the pace rule calls for exist.
    const listers = [];
    for (let i = 0; i < CLIENTS; i++) listers.push(await openTab());
    const receiver = listers[0];
    messaging.declare(receiver.sessionId, { delivery: 'inbox' });
    let nextList = 0;
    const listOnce = async () => {
      const asker = listers[nextList++ % listers.length];
      const answer = await askModule(socket, { token: asker.token, op: 'list' });
      if (!answer.ok || answer.tabs.length !== CLIENTS - 1) throw new Error(`list refused: ${answer.code} ${answer.text}`);
    };
    const senders = [];
    let nextSend = 0;
    const sendOnce = async () => {
      const from = senders[Math.floor(nextSend++ / SENDS_PER_TAB)];
      const answer = await askModule(socket, { token: from.token, op: 'send', tab: String(receiver.tab), text: 'Please run the tests.', kind: 'task' });
      if (!answer.ok) throw new Error(`send refused: ${answer.code} ${answer.text}`);
    };

    const rows = [];
    for (const [op, once] of [['list', listOnce], ['send', sendOnce]]) {
      if (op === 'send') {
        const needed = Math.ceil((warmup + samples + throughputOps) / SENDS_PER_TAB);
        for (let i = 0; i < needed; i++) senders.push(await openTab());
      }
      const latency = await measureLatency(once, { warmup, samples });
      rows.push({ op, ...latency, opsPerSecond: await measureThroughput(once, { callers: CLIENTS, calls: throughputOps }) });
    }
    const waiting = (await daemon.core.messaging.describe(receiver.sessionId)).waiting;
    const text =
      formatTable(
        ['question', 'median ms', 'p90 ms', 'p99 ms', 'CPU µs/op', `ops/s (${CLIENTS} clients)`, 'samples'],
        rows.map((r) => [r.op, round(r.median), round(r.p90), round(r.p99), round(r.cpuUs), round(r.opsPerSecond), r.n]),
      ) + `\n\nlist: ${CLIENTS} tabs open. send: ${senders.length} sender tabs (${SENDS_PER_TAB} messages each, the pace rule's most) to one tab that reads its inbox; ${waiting} messages waiting there at the end.`;
    return {
      text,
      json: {
        samples,
        warmup,
        throughputOps,
        clients: CLIENTS,
        tabs: CLIENTS + senders.length,
        rows: rows.map(roundNumbers),
      },
    };
  } finally {
    await berth.close();
  }
}

if (isMain(import.meta.url)) await runStandalone({ name, description, run });
