// The cluster benchmark's table: each row's median and p90 on the SQLite daemon and on the
// PostgreSQL daemon, the per-request ratio PostgreSQL / SQLite against issue 18's 1.5× target,
// and the slot for the several-node rows, printed as not measured until they are built.
import { formatTable } from './report.mjs';
import { round, roundNumbers, summarize } from './stats.mjs';

/** Issue 18: one node on PostgreSQL (+ NATS) stays within 1.5× of the SQLite daemon's latency per request. */
export const LATENCY_TARGET = 1.5;
/** The several-node rows issue 18 asks for; not measured until leases and NATS exist. */
export const NODE_COUNTS = [1, 2, 3];
const NOT_MEASURED = 'not measured yet';

/**
 * The measured rows: `phase` names the blocks, `kind` whether the row is a latency (ms, from every
 * sample of every block) or a rate (per second, one value per block). For a rate, the per-request
 * ratio is SQLite's rate over PostgreSQL's (time per request); for a latency, PostgreSQL's median
 * over SQLite's.
 */
export function clusterRows(plan) {
  return [
    { id: `POST /session, ${plan.callers} callers`, phase: 'sessions', kind: 'latency', unit: 'ms' },
    { id: 'sessions created/s', phase: 'sessions', kind: 'rate', unit: '/s' },
    { id: `prompt → turn_complete, ${plan.promptSessions} sessions at once`, phase: 'prompts', kind: 'latency', unit: 'ms' },
    { id: 'prompts/s', phase: 'prompts', kind: 'rate', unit: '/s' },
    { id: `SSE frame delay, ${plan.subscribers} subscribers`, phase: 'fanout', kind: 'latency', unit: 'ms' },
    { id: `SSE frames/s delivered, ${plan.subscribers} subscribers`, phase: 'fanout', kind: 'rate', unit: '/s' },
  ];
}

/** `{id, unit, kind, sqlite, postgres?, ratio?}` with the summaries of one row. */
export function summarizeRow(row, blocks) {
  const pick = (store) => {
    const list = blocks[store]?.[row.phase];
    if (!list || list.length === 0) return undefined;
    return roundNumbers(summarize(row.kind === 'rate' ? list.map((b) => b.rate) : list.flatMap((b) => b.latencyMs)));
  };
  const sqlite = pick('sqlite');
  const postgres = pick('postgres');
  const out = { id: row.id, unit: row.unit, kind: row.kind, sqlite };
  if (postgres) {
    out.postgres = postgres;
    out.ratio = round(row.kind === 'rate' ? sqlite.median / postgres.median : postgres.median / sqlite.median);
  }
  return out;
}

const fmt = (v) => (v === undefined ? '—' : Number(round(v)).toLocaleString('en-US'));

/** `{text, json}` for run.mjs. */
export function reportCluster({ plan, blocks, loads, rss, postgres }) {
  const rows = clusterRows(plan).map((r) => summarizeRow(r, blocks));
  const header = ['one node', 'SQLite median', 'p90', 'PostgreSQL median', 'p90', 'PG/SQLite per request', `≤ ${LATENCY_TARGET}×`];
  const table = formatTable(
    header,
    rows.map((r) => {
      const u = r.unit === 'ms' ? ' ms' : '';
      // For a rate the spread that matters is the slow side: p10 of a rate is its p90 of time.
      const spread = (s) => (s === undefined ? '—' : `${fmt(r.kind === 'rate' ? s.p10 : s.p90)}${u}`);
      return [
        r.id,
        `${fmt(r.sqlite.median)}${u}`,
        spread(r.sqlite),
        r.postgres ? `${fmt(r.postgres.median)}${u}` : '—',
        spread(r.postgres),
        r.ratio === undefined ? '—' : `${r.ratio.toFixed(2)}×`,
        r.ratio === undefined ? '—' : r.ratio <= LATENCY_TARGET ? 'yes' : 'NO',
      ];
    }),
  );
  const nodes = formatTable(
    ['PostgreSQL + NATS', ...NODE_COUNTS.map((n) => `${n} node${n > 1 ? 's' : ''}`)],
    clusterRows(plan)
      .filter((r) => r.kind === 'rate')
      .map((r) => [r.id, ...NODE_COUNTS.map(() => NOT_MEASURED)]),
  );
  const mib = (r) => (r ? `${(r.totalKiB / 1024).toFixed(0)} MiB` : '—');
  const frames = blocks.sqlite.fanout.map((b) => b.framesPerTurn);
  const notes = [
    `rounds: ${plan.rounds}; per round and daemon: ${plan.callers}×${plan.sessionsPerCaller} sessions, ${plan.promptSessions}×${plan.promptsPerSession} prompts, ${plan.fanoutPrompts} prompts to ${plan.subscribers} subscribers; daemon order alternates by round`,
    'rates: one value per block (median, and p10 as the slow side); latencies: every sample of every block (median, p90)',
    `SSE: ${fmt(frames[0])} frames per turn per subscriber; frame delay = arrival − the daemon's _meta.serverTimestamp (whole ms, same clock)`,
    postgres.skipped
      ? `PostgreSQL: not measured (${postgres.skipped})`
      : `PostgreSQL: ${postgres.version}, ${postgres.sessionRows} session rows stored, loopback TCP, started by the bench, durability ${postgres.durable ? 'ON (fsync, synchronous_commit, full_page_writes: the defaults)' : 'OFF (BERTH_BENCH_PG_DURABILITY=off: a diagnostic of the fsync share, not numbers to quote)'}; SQLite: WAL with synchronous=NORMAL (Berth's setting: a commit is not fsynced until checkpoint)`,
    `RSS after the run: berth/sqlite ${mib(rss.sqlite)}, berth/postgres ${mib(rss.postgres)}, PostgreSQL server ${mib(rss.postgresServer)}`,
    `1-minute load after each round: ${loads.join(', ')}`,
    `several nodes: ${NOT_MEASURED} (leases and NATS, issue 18, are not built); the slot below is where their rows go`,
  ];
  const text = [table, '', ...notes.map((n) => `- ${n}`), '', nodes].join('\n');
  return {
    text,
    json: {
      chartTitle: 'Berth on SQLite beside Berth on PostgreSQL, one node',
      plan,
      rows,
      multiNode: { status: NOT_MEASURED, nodes: NODE_COUNTS, rows: clusterRows(plan).filter((r) => r.kind === 'rate').map((r) => r.id) },
      postgres,
      rss: Object.fromEntries(Object.entries(rss).map(([k, v]) => [k, v?.totalKiB])),
      loads,
    },
  };
}
