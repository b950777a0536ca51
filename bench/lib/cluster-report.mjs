// The cluster benchmark's tables: one node (SQLite, PostgreSQL, PostgreSQL + NATS) with the ratio
// per request to SQLite against issue 18's 1.5× target; PostgreSQL + NATS with the load spread over
// 1, 2 and 3 nodes; and the forwarding cost (owner vs another node) against its 1 ms target.
import { formatTable } from './report.mjs';
import { round, roundNumbers, summarize } from './stats.mjs';

/** Issue 18: one node on PostgreSQL (+ NATS) stays within 1.5× of the SQLite daemon's latency per request. */
export const LATENCY_TARGET = 1.5;
/** Issue 18: a request forwarded to the owning node adds at most this much at the median. */
export const FORWARD_TARGET_MS = 1;
/** The cluster sizes measured. */
export const NODE_COUNTS = [1, 2, 3];
/** Block keys (cluster.mjs) → the series names of the result JSON and its chart. */
export const SERIES = { sqlite: 'sqlite', postgres: 'postgres', nats1: 'pg+nats 1 node', nats2: 'pg+nats 2 nodes', nats3: 'pg+nats 3 nodes' };

/**
 * The measured rows: `phase` names the blocks, `kind` whether the row is a latency (ms, from every
 * sample of every block) or a rate (per second, one value per block).
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

/**
 * Time per request of `other` over `base`, so above 1 always means slower: the median over the
 * median for a latency, the base's rate over the other's for a rate.
 */
export function perRequestRatio(kind, base, other) {
  if (!base || !other) return undefined;
  return round(kind === 'rate' ? base.median / other.median : other.median / base.median);
}

/** `{id, unit, kind, <series>: summary…, ratios: {postgres?, 'pg+nats 1 node'?}}` for one row. */
export function summarizeRow(row, blocks) {
  const out = { id: row.id, unit: row.unit, kind: row.kind };
  for (const [key, series] of Object.entries(SERIES)) {
    const list = blocks[key]?.[row.phase];
    if (!list || list.length === 0) continue;
    out[series] = roundNumbers(summarize(row.kind === 'rate' ? list.map((b) => b.rate) : list.flatMap((b) => b.latencyMs)));
  }
  out.ratios = {};
  for (const series of [SERIES.postgres, SERIES.nats1]) {
    const r = perRequestRatio(row.kind, out.sqlite, out[series]);
    if (r !== undefined) out.ratios[series] = r;
  }
  return out;
}

/** The forwarding row from every round's `{owner: [ms], forwarded: [ms]}`: both summaries and the median difference. */
export function summarizeForwarding(forward) {
  if (!forward || forward.length === 0) return undefined;
  const owner = roundNumbers(summarize(forward.flatMap((f) => f.owner)));
  const forwarded = roundNumbers(summarize(forward.flatMap((f) => f.forwarded)));
  const costMs = round(forwarded.median - owner.median);
  return { id: 'GET /session/{id}/status', unit: 'ms', owner, forwarded, costMs, costP90Ms: round(forwarded.p90 - owner.p90), withinTarget: costMs <= FORWARD_TARGET_MS };
}

const fmt = (v) => (v === undefined ? '—' : Number(round(v)).toLocaleString('en-US'));
const verdict = (ok) => (ok === undefined ? '—' : ok ? 'yes' : 'NO');
const times = (r) => (r === undefined ? '—' : `${r.toFixed(2)}×`);

/** Median and the slow side (p90 of a latency, p10 of a rate: a rate's p10 is its p90 of time). */
function cells(row, s) {
  const u = row.unit === 'ms' ? ' ms' : '';
  if (s === undefined) return ['—', '—'];
  return [`${fmt(s.median)}${u}`, `${fmt(row.kind === 'rate' ? s.p10 : s.p90)}${u}`];
}

function oneNodeTable(rows) {
  const nats = SERIES.nats1;
  return formatTable(
    ['one node', 'SQLite median', 'p90', 'PostgreSQL median', 'p90', 'PG/SQLite', 'PG+NATS median', 'p90', 'PG+NATS/SQLite', `≤ ${LATENCY_TARGET}×`],
    rows.map((r) => {
      const worst = r.ratios[nats] ?? r.ratios[SERIES.postgres];
      return [
        r.id,
        ...cells(r, r.sqlite),
        ...cells(r, r[SERIES.postgres]),
        times(r.ratios[SERIES.postgres]),
        ...cells(r, r[nats]),
        times(r.ratios[nats]),
        verdict(worst === undefined ? undefined : worst <= LATENCY_TARGET),
      ];
    }),
  );
}

/** Medians with 1, 2 and 3 nodes and the 3-node / 1-node ratio (throughput gained, or time per request lost). */
function nodesTable(rows) {
  const series = NODE_COUNTS.map((n) => SERIES[`nats${n}`]);
  return formatTable(
    ['PostgreSQL + NATS, round robin', ...NODE_COUNTS.map((n) => `${n} node${n > 1 ? 's' : ''}`), '3 nodes / 1 node'],
    rows.map((r) => {
      const u = r.unit === 'ms' ? ' ms' : '';
      const first = r[series[0]];
      const last = r[series.at(-1)];
      const scale = first && last ? `${(last.median / first.median).toFixed(2)}×` : '—';
      return [r.id, ...series.map((s) => (r[s] ? `${fmt(r[s].median)}${u}` : 'not measured')), scale];
    }),
  );
}

function forwardTable(f) {
  return formatTable(
    ['forwarding (2+ nodes up)', 'to the owner median', 'p90', 'via another node median', 'p90', 'difference median', 'p90', `≤ ${FORWARD_TARGET_MS} ms`],
    [[f.id, `${fmt(f.owner.median)} ms`, `${fmt(f.owner.p90)} ms`, `${fmt(f.forwarded.median)} ms`, `${fmt(f.forwarded.p90)} ms`, `${fmt(f.costMs)} ms`, `${fmt(f.costP90Ms)} ms`, verdict(f.withinTarget)]],
  );
}

/** `{text, json}` for run.mjs. */
export function reportCluster({ plan, blocks, forward, loads, rss, postgres, bus }) {
  const rows = clusterRows(plan).map((r) => summarizeRow(r, blocks));
  const forwarding = summarizeForwarding(forward);
  const mib = (r) => (r ? `${(r.totalKiB / 1024).toFixed(0)} MiB` : '—');
  const frames = blocks.sqlite.fanout.map((b) => b.framesPerTurn);
  const notes = [
    `rounds: ${plan.rounds}; per round and target: ${plan.callers}×${plan.sessionsPerCaller} sessions, ${plan.promptSessions}×${plan.promptsPerSession} prompts, ${plan.fanoutPrompts} prompts to ${plan.subscribers} subscribers; ${plan.forwardRequests} status requests each way; target order reverses by round`,
    'rates: one value per block (median, and p10 as the slow side); latencies: every sample of every block (median, p90); ratios are per request (above 1 = slower than SQLite)',
    `SSE: ${fmt(frames[0])} frames per turn per subscriber; frame delay = arrival − the owner's _meta.serverTimestamp (whole ms, same clock)`,
    postgres.skipped
      ? `PostgreSQL: not measured (${postgres.skipped})`
      : `PostgreSQL: ${postgres.version}, ${postgres.sessionRows} session rows stored, loopback TCP, started by the bench, durability ${postgres.durable ? 'ON (fsync, synchronous_commit, full_page_writes: the defaults)' : 'OFF (BERTH_BENCH_PG_DURABILITY=off: a diagnostic of the fsync share, not numbers to quote)'}${postgres.relaxedCommits ? ', Berth\'s databases at synchronous_commit=off (BERTH_BENCH_PG_COMMIT=relaxed: only the promised writes wait for their flush)' : ''}; SQLite: WAL with synchronous=NORMAL (Berth's setting: a commit is not fsynced until checkpoint)`,
    bus?.skipped
      ? `PostgreSQL + NATS: not measured (${bus.skipped})`
      : `PostgreSQL + NATS: ${bus.version}, ${bus.nodes} nodes always up (the n-node blocks send to the first n, round robin per request: creates, streams and prompts land on any node, so prompts and streams are forwarded or followed over NATS); ${bus.sessionRows} session rows stored`,
    `RSS after the run: ${Object.entries(rss).map(([k, v]) => `${k} ${mib(v)}`).join(', ')}`,
    `1-minute load after each round: ${loads.join(', ')}`,
  ];
  const tables = [oneNodeTable(rows), '', ...notes.map((n) => `- ${n}`), '', nodesTable(rows)];
  if (forwarding) tables.push('', forwardTable(forwarding));
  return {
    text: tables.join('\n'),
    json: {
      chartTitle: 'Berth on SQLite, on PostgreSQL, and on 1-3 PostgreSQL + NATS nodes',
      plan,
      rows,
      forwarding,
      postgres,
      bus,
      rss: Object.fromEntries(Object.entries(rss).map(([k, v]) => [k, v?.totalKiB])),
      loads,
    },
  };
}
