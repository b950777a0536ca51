// The session benchmark's table and JSON: per metric, each daemon's median and range over every
// sample of every boot, Berth's ratio (peer ÷ Berth for times, Berth ÷ peer for memory) and the
// issue-3 target it is held to.
import { formatTable } from './report.mjs';
import { round, summarize } from './stats.mjs';

const MIB = 1024;
const rssMiB = (rss) => rss.totalKiB / MIB;
const all = (boots, pick) => boots.flatMap((b) => [pick(b)].flat()).filter((v) => typeof v === 'number');

/**
 * The rows. `samples(daemonBoots)` gathers one daemon's numbers; `target` is issue 3's
 * (`speedup`: peer ÷ Berth at least this; `share`: Berth ÷ peer at most this); `baseline` is the
 * peer's median in shared/reference/qwen-serve/BASELINE.md, to show this run measured the peer alike.
 */
export const METRICS = [
  { id: 'start -> GET /health 200', unit: 'ms', baseline: 518, samples: (b) => [...all(b.timing, (r) => r.healthMs), ...all(b.memory, (r) => r.healthMs)] },
  { id: 'start -> /health?deep=1 200', unit: 'ms', baseline: 1653, samples: (b) => all(b.timing, (r) => r.deepOkMs) },
  { id: 'POST /session, first', unit: 'ms', baseline: 1136, target: { speedup: 20 }, samples: (b) => all(b.timing, (r) => r.sessionFirstMs) },
  { id: 'POST /session, later', unit: 'ms', baseline: 58, target: { speedup: 20 }, samples: (b) => all(b.timing, (r) => r.sessionLaterMs) },
  { id: 'prompt admission (202)', unit: 'ms', baseline: 3.2, samples: (b) => all(b.timing, (r) => r.admitMs) },
  { id: 'prompt -> turn_complete, first turn', unit: 'ms', baseline: 209, target: { speedup: 10 }, samples: (b) => all(b.timing, (r) => r.turnFirstMs) },
  { id: 'prompt -> turn_complete, later turns', unit: 'ms', baseline: 25, target: { speedup: 4 }, samples: (b) => all(b.timing, (r) => r.turnLaterMs) },
  { id: 'RSS of the tree, idle', unit: 'MiB', baseline: 410, samples: (b) => all(b.memory, (r) => rssMiB(r.rssIdle)) },
  { id: 'RSS, 1 live session', unit: 'MiB', samples: (b) => all(b.memory, (r) => rssMiB(r.rss1)) },
  { id: 'RSS, 20 live sessions', unit: 'MiB', target: { share: 1 / 5 }, samples: (b) => all(b.memory, (r) => rssMiB(r.rssMany)) },
];

/** peer ÷ Berth for times (above 1: Berth is faster), Berth ÷ peer for memory (below 1: Berth is smaller). */
export function ratioOf(unit, peerMedian, berthMedian) {
  return unit === 'MiB' ? berthMedian / peerMedian : peerMedian / berthMedian;
}

/** Whether `ratio` meets `target`; null when the metric has no target or no ratio. */
export function meets(target, ratio) {
  if (!target || !Number.isFinite(ratio)) return null;
  return target.speedup !== undefined ? ratio >= target.speedup : ratio <= target.share;
}

const fmt = (v) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0) : '');
const range = (s) => (s.n ? `${fmt(s.min)}-${fmt(s.max)}` : '');
const fmtRatio = (unit, r) => (!Number.isFinite(r) ? '' : unit === 'MiB' ? `${r.toFixed(3)} (1/${(1 / r).toFixed(1)})` : `${r.toFixed(1)}x`);
const fmtTarget = (t) => (!t ? '' : t.speedup !== undefined ? `>= ${t.speedup}x` : `<= ${t.share.toFixed(2)} (1/${Math.round(1 / t.share)})`);
const summaryJson = (s) => ({ n: s.n, median: round(s.median), p10: round(s.p10), p90: round(s.p90), min: round(s.min), max: round(s.max), mean: round(s.mean) });

/** `node /long/path/cli-entry.js serve …` → `cli-entry.js serve`: which process, without the machine's paths. */
export function processName(cmd) {
  const args = cmd.split(' ').slice(1);
  const script = args.findIndex((a) => !a.startsWith('-'));
  return script === -1 ? cmd.split('/').pop() : [args[script].split('/').pop(), ...args.slice(script + 1, script + 2)].join(' ');
}

/** `{text, json}` for run.mjs from the boots of both daemons. */
export function reportSessions({ plan, boots, loads, settle }) {
  const rows = [];
  const json = [];
  for (const m of METRICS) {
    const peer = summarize(m.samples(boots.peer));
    const berth = summarize(m.samples(boots.berth));
    const floor = boots.floor ? summarize(m.samples(boots.floor)) : null;
    const ratio = ratioOf(m.unit, peer.median, berth.median);
    const overFloor = floor ? berth.median / floor.median : NaN;
    const met = meets(m.target, ratio);
    rows.push([
      `${m.id} (${m.unit})`,
      `${peer.n}/${berth.n}`,
      fmt(m.baseline),
      fmt(peer.median),
      range(peer),
      fmt(berth.median),
      range(berth),
      fmtRatio(m.unit, ratio),
      fmtTarget(m.target),
      met === null ? '' : met ? 'met' : 'MISSED',
      floor ? fmt(floor.median) : '',
      Number.isFinite(overFloor) ? `${overFloor.toFixed(2)}x` : '',
    ]);
    json.push({
      id: m.id,
      unit: m.unit,
      baselinePeerMedian: m.baseline ?? null,
      peer: summaryJson(peer),
      berth: summaryJson(berth),
      ...(floor ? { floor: summaryJson(floor), berthOverFloor: Number.isFinite(overFloor) ? round(overFloor) : null } : {}),
      ratio: round(ratio),
      target: m.target ?? null,
      met,
    });
  }
  const table = formatTable(
    ['metric', 'n peer/berth', 'BASELINE peer', 'peer median', 'peer range', 'berth median', 'berth range', 'ratio', 'target', '', 'floor median', 'berth/floor'],
    rows,
  );
  const replies = (kind) => [...new Set(boots[kind].timing.concat(boots[kind].memory).flatMap((b) => b.replies))].map((r) => JSON.stringify(r)).join(', ');
  const live = (kind) => boots[kind].memory.map((b) => b.liveSessions ?? '?').join('/');
  const procs = (kind) => {
    const last = boots[kind].memory.at(-1)?.rssMany;
    return last ? last.procs.map((p) => `${processName(p.cmd)} ${(p.kib / MIB).toFixed(0)} MiB`).join(' + ') : '';
  };
  const notes = [
    `boots per daemon: ${plan.timingBoots} timing + ${plan.memoryBoots} memory, each a fresh daemon, HOME and workspace; one daemon up at a time, order alternating`,
    `per timing boot: first session right after /health, ${plan.laterSessions} later sessions, a first turn in each, ${plan.laterTurns} later turns in one; ${settle.stepGapMs} ms between steps`,
    `ratio: peer median / berth median for times, berth / peer for memory; ranges are min-max over all samples; BASELINE = peer medians in BASELINE.md`,
    `berth/floor: berth median / floor median (the floor: a bare node:http daemon answering the same routes, no store, no transcript)`,
    `memory: VmRSS summed over the daemon's process tree; idle ${settle.idleMs} ms after deep health; sessions with one completed turn each, SSE closed, ${settle.sessionsMs} ms settle`,
    `live sessions reported by /health?deep=1 after the ${plan.memorySessions}: peer ${live('peer')}, berth ${live('berth')}`,
    `last ${plan.memorySessions}-session tree: peer ${procs('peer')}; berth ${procs('berth')}`,
    `agent replies seen: ${Object.keys(boots).map((kind) => `${kind} ${replies(kind)}`).join('; ')}`,
    `1-minute load average after each boot: ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)}`,
  ];
  return { name: 'sessions', text: `${table}\n\n${notes.join('\n')}`, json: { plan, settle, metrics: json, loads, boots } };
}
