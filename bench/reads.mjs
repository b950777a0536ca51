// Benchmark "reads" (issue 2): GET /file, /list and /glob on the 10,000-file fixture, Berth next
// to the peer. Each daemon gets one keep-alive connection and sequential requests; samples are
// taken in alternating blocks. Reports median and p90 per daemon and the peer/Berth ratio
// (above 1 = Berth is faster), and beside them the floor daemon (bench/floor/server.mjs: the same
// routes answered as directly as Node can) with Berth's ratio to it. GET /health rides along as a
// request that does no work.
import { createHash } from 'node:crypto';
import { TARGETS } from './fixture.mjs';
import { keepAliveClient } from './lib/http-client.mjs';
import { formatTable } from './lib/report.mjs';
import { sampleInterleaved } from './lib/sampling.mjs';
import { withBothDaemons } from './lib/side-by-side.mjs';
import { round } from './lib/stats.mjs';
import { treeRss } from './lib/proctree.mjs';

export const name = 'reads';
export const description = 'GET /file, /list, /glob on a 10,000-file workspace (spec §11)';

const q = encodeURIComponent;

/** Sampling plans: cheap reads get many samples; a glob walks the whole tree, so fewer. */
const PLANS = {
  full: { cheap: { warmup: 50, rounds: 20, block: 20 }, walk: { warmup: 10, rounds: 20, block: 5 } },
  quick: { cheap: { warmup: 10, rounds: 4, block: 10 }, walk: { warmup: 3, rounds: 4, block: 5 } },
};

/**
 * The measured requests. `fingerprint` reduces a response to what both daemons must agree on,
 * so a ratio is only read as "same work, different speed" when the fingerprints match.
 */
const CASES = [
  { id: 'health', path: '/health', plan: 'cheap', fingerprint: (b) => b.status },
  {
    id: 'file small',
    path: `/file?path=${q(TARGETS.smallFile)}`,
    plan: 'cheap',
    fingerprint: fileFingerprint,
  },
  {
    id: 'file medium',
    path: `/file?path=${q(TARGETS.mediumFile)}`,
    plan: 'cheap',
    fingerprint: fileFingerprint,
  },
  { id: 'list root', path: '/list?path=.', plan: 'cheap', fingerprint: listFingerprint },
  { id: 'list large dir', path: `/list?path=${q(TARGETS.largeDir)}`, plan: 'cheap', fingerprint: listFingerprint },
  { id: 'glob wide', path: `/glob?pattern=${q(TARGETS.globWide)}`, plan: 'walk', fingerprint: globFingerprint },
  { id: 'glob narrow', path: `/glob?pattern=${q(TARGETS.globNarrow)}`, plan: 'walk', fingerprint: globFingerprint },
];

const digest = (text) => createHash('sha256').update(text).digest('hex').slice(0, 12);

function fileFingerprint(b) {
  return `${Buffer.byteLength(b.content)} B content ${digest(b.content)}${b.truncated ? ' (truncated)' : ''}`;
}

/** Entry order is directory order on the peer (spec §11.5), so names are compared sorted. */
function listFingerprint(b) {
  const names = b.entries.map((e) => `${e.name}:${e.kind}`).sort();
  return `${names.length} entries${b.truncated ? ' (truncated)' : ''} ${digest(names.join('\n'))}`;
}

function globFingerprint(b) {
  return `${b.count} matches${b.truncated ? ' (truncated)' : ''} ${digest([...b.matches].sort().join('\n'))}`;
}

/** One probe per daemon: does it serve this route, and what does the answer say? */
async function probe(client, path, fingerprint) {
  const res = await client.get(path);
  // `firstMs`: this is each daemon's first request of the row (cold caches), kept apart from the samples.
  const firstMs = round(res.ms);
  if (res.status !== 200) return { ok: false, status: res.status, firstMs, note: res.body.toString('utf8').slice(0, 200) };
  return { ok: true, status: 200, firstMs, bytes: res.bytes, fingerprint: fingerprint(JSON.parse(res.body.toString('utf8'))) };
}

/** Runs the benchmark; `quick` shrinks the sample counts for a smoke run; `profileDir` see withBothDaemons. */
export async function run({ quick = false, profileDir, log = console.error } = {}) {
  const plans = quick ? PLANS.quick : PLANS.full;
  return withBothDaemons(
    async ({ peer, berth, floor, fixture }) => {
      const daemons = [
        { name: 'peer', proc: peer, client: keepAliveClient(peer.url) },
        { name: 'berth', proc: berth, client: keepAliveClient(berth.url) },
        { name: 'floor', proc: floor, client: keepAliveClient(floor.url) },
      ];
      const cases = [];
      try {
        for (const c of CASES) {
          const plan = plans[c.plan];
          const probes = {};
          for (const d of daemons) probes[d.name] = await probe(d.client, c.path, c.fingerprint);
          const serving = daemons.filter((d) => probes[d.name].ok);
          log(`bench: ${c.id}: ${serving.map((d) => d.name).join(', ') || 'none'} serve ${c.path}`);
          const sampled = serving.length > 0 ? await sampleInterleaved(serving, c.path, plan) : {};
          cases.push({ id: c.id, path: c.path, plan, probes, results: sampled });
        }
      } finally {
        for (const d of daemons) d.client.close();
      }
      const rss = Object.fromEntries(daemons.map((d) => [d.name, treeRss(d.proc.pid)]));
      const connections = Object.fromEntries(daemons.map((d) => [d.name, d.client.connections]));
      return report({ fixture, cases, rss, connections, daemons });
    },
    { log, profileDir, withFloor: true },
  );
}

function report({ fixture, cases, rss, connections, daemons }) {
  const rows = [];
  const json = [];
  for (const c of cases) {
    const p = c.results.peer?.summary;
    const b = c.results.berth?.summary;
    const f = c.results.floor?.summary;
    const speedup = p && b ? p.median / b.median : NaN;
    const overFloor = b && f ? b.median / f.median : NaN;
    const sameWork = c.probes.peer.ok && c.probes.berth.ok && c.probes.peer.fingerprint === c.probes.berth.fingerprint;
    rows.push([
      c.id,
      p?.n ?? b?.n ?? 0,
      fmt(p?.median),
      fmt(p?.p90),
      b ? fmt(b.median) : `n/a (${c.probes.berth.status})`,
      fmt(b?.p90),
      Number.isFinite(speedup) ? `${speedup.toFixed(2)}x` : '',
      fmt(f?.median),
      Number.isFinite(overFloor) ? `${overFloor.toFixed(2)}x` : '',
      c.probes.peer.ok && c.probes.berth.ok ? (sameWork ? 'same' : 'DIFFERS') : '',
      c.probes.floor.ok && c.probes.berth.ok ? (c.probes.floor.fingerprint === c.probes.berth.fingerprint ? 'same' : 'DIFFERS') : '',
    ]);
    json.push({
      id: c.id,
      path: c.path,
      samplesPerDaemon: p?.n ?? b?.n ?? 0,
      plan: c.plan,
      peer: p ? summaryJson(p) : null,
      berth: b ? summaryJson(b) : null,
      floor: f ? summaryJson(f) : null,
      speedupPeerOverBerth: Number.isFinite(speedup) ? round(speedup) : null,
      berthOverFloor: Number.isFinite(overFloor) ? round(overFloor) : null,
      statuses: Object.fromEntries(Object.entries(c.results).map(([k, v]) => [k, v.statuses])),
      probes: c.probes,
    });
  }
  const table = formatTable(
    ['request', 'samples', 'peer median ms', 'peer p90', 'berth median ms', 'berth p90', 'speed-up', 'floor median ms', 'berth/floor', 'answers', 'vs floor'],
    rows,
  );
  const rssMiB = (name) => (rss[name].totalKiB / 1024).toFixed(0);
  const notes = [
    `fixture: ${fixture.files} files, ${(fixture.bytes / 2 ** 20).toFixed(1)} MiB, ${fixture.ignored} ignored by .gitignore`,
    `each daemon: its own keep-alive connection (TCP connections opened: peer ${connections.peer}, berth ${connections.berth}), sequential requests, blocks alternated`,
    `speed-up = peer median / berth median (above 1: Berth is faster); "answers" compares what peer and Berth returned, "vs floor" Berth and the floor`,
    `berth/floor = berth median / floor median: what Berth's own machinery costs over a bare node:http answer doing the same reads`,
    `RSS of the process tree after the run: ${Object.keys(rss).map((n) => `${n} ${rssMiB(n)} MiB (${rss[n].procs.length} processes)`).join(', ')}`,
    `time to listening line: ${daemons.map((d) => `${d.name} ${d.proc.listenMs.toFixed(0)} ms`).join(', ')} (one start each)`,
  ];
  return {
    name,
    text: `${table}\n\n${notes.join('\n')}`,
    json: {
      fixture,
      connections,
      listenMs: Object.fromEntries(daemons.map((d) => [d.name, round(d.proc.listenMs)])),
      rss,
      cases: json,
    },
  };
}

const fmt = (v) => (v === undefined || !Number.isFinite(v) ? '' : v.toFixed(v < 10 ? 2 : 1));

function summaryJson(s) {
  return { n: s.n, median: round(s.median), p10: round(s.p10), p90: round(s.p90), min: round(s.min), max: round(s.max), mean: round(s.mean) };
}
