// Benchmark "fanout" (issue 17): one session watched by 64 event streams, as a team watching one
// agent would. For every frame that reaches all of them, the spread is the time from its arrival
// on the first stream to its arrival on the last; beside it the time from a prompt's POST to the
// last stream's turn_complete, and the frames delivered per second. Berth next to the peer and
// the floor daemon (bench/floor/server.mjs writes each frame subscriber by subscriber, as directly
// as Node can).
//
// The streams are read cheaply on purpose: a frame's arrival is the time its chunk came off the
// socket, read from a bare TCP socket (no HTTP parser, bytes through `onread`), and only its `id:` line is looked for, so
// the client's own work adds as little as it can to the spread. All 64 streams share this process, so a spread is never below what one event loop
// takes to take 64 sockets' chunks in turn; that cost is the same for every daemon.
import net from 'node:net';
import { ALL_CPUS, pin, pinningUnavailable } from './lib/cpu-pinning.mjs';
import { keepAliveClient } from './lib/http-client.mjs';
import { formatTable } from './lib/report.mjs';
import { createSession } from './lib/session-steps.mjs';
import { withBothDaemons } from './lib/side-by-side.mjs';
import { round, summarize } from './lib/stats.mjs';

export const name = 'fanout';
export const description = 'SSE fan-out: one session, 64 streams; per-frame spread from the first to the last stream (issue 17)';

const PLANS = {
  full: { subscribers: 64, rounds: 6, promptsPerRound: 5 },
  quick: { subscribers: 64, rounds: 2, promptsPerRound: 2 },
};
/** The prompt the scripted model answers with a reply in many small deltas: many frames per turn. */
const PROMPT = 'Fan this answer out, please.';
const REPLY = 'Every subscriber of this session reads the same words at the same moment. '.repeat(8);
const CHUNK_CHARS = 20;
/**
 * Deltas this far apart, as a real model streams them: each frame then goes out on its own, so its
 * spread is what one frame's write to every stream costs, not the queue of a burst of frames that
 * an instant model would pile up (the peer's slower turns would space its frames and flatter it).
 */
const CHUNK_DELAY_MS = 15;
const TURN_TIMEOUT_MS = 60_000;

/**
 * Finds, in a stream's text as it comes off the socket, the ids of the frames whose `id:` line is
 * whole and the `turn_complete` frames, calling `onId(id)` and `onTurn()` for each. A line cut
 * between two reads is kept for the next. It looks only for a newline followed by `id: ` or
 * `event: turn_complete`: the HTTP chunk-size lines between frames never start that way.
 */
export function frameScanner(onId, onTurn) {
  let carry = '';
  return (chunk) => {
    const text = carry + chunk;
    const cut = text.lastIndexOf('\n');
    carry = cut < 0 ? text : text.slice(cut);
    for (let at = text.indexOf('\nid: '); at >= 0 && at < cut; at = text.indexOf('\nid: ', at + 5)) {
      onId(text.slice(at + 5, text.indexOf('\n', at + 5)));
    }
    for (let at = text.indexOf(TURN_LINE); at >= 0 && at < cut; at = text.indexOf(TURN_LINE, at + 1)) onTurn();
  };
}
const TURN_LINE = '\nevent: turn_complete\n';

/**
 * One read buffer shared by every stream: an `onread` callback consumes its bytes before it returns,
 * so no stream needs its own, and no read allocates.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/**
 * A stream read for arrival times only: `arrivals` maps a frame id to the hrtime its bytes came
 * off the socket. A bare TCP socket, not node:http, whose parser and stream machinery cost the
 * client tens of microseconds per socket: 64 of them would be most of a spread, whoever served it.
 * Its bytes come through `onread` into one shared buffer, not as `data` events: no Buffer per read
 * and no stream machinery. Reading 64 ready sockets in one loop turn then takes this client about
 * 5 us a socket instead of about 8.5 (most of it Node's own read path), under the 10 us a socket
 * the daemons' write loops take, so the spread follows the daemon's writes more than this client's reads.
 */
export function openLightStream(baseUrl, sessionId) {
  const target = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const stream = { arrivals: new Map(), turnsDone: 0, onTurn: () => {}, close: () => socket.destroy() };
    let at = 0n;
    const scan = frameScanner(
      (id) => {
        if (!stream.arrivals.has(id)) stream.arrivals.set(id, at);
      },
      () => {
        stream.turnsDone += 1;
        stream.onTurn();
      },
    );
    let head = '';
    const onBytes = (nread, buffer) => {
      at = process.hrtime.bigint();
      const text = buffer.latin1Slice(0, nread);
      if (head === undefined) return scan(text);
      head += text;
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (!/^HTTP\/1\.1 200 /.test(head)) {
        socket.destroy();
        reject(new Error(`GET /session/:id/events -> ${head.slice(0, head.indexOf('\r\n'))}`));
        return;
      }
      const body = head.slice(end + 2);
      head = undefined;
      resolve(stream);
      scan(body);
    };
    const socket = net.connect({ port: Number(target.port), host: target.hostname, onread: { buffer: READ_BUFFER, callback: onBytes } });
    socket.on('error', reject);
    socket.on('connect', () => {
      const path = `/session/${encodeURIComponent(sessionId)}/events`;
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${target.host}\r\nAccept: text/event-stream\r\n\r\n`);
    });
  });
}

/** Resolves once every stream has seen `turns` turn_completes. */
function allTurnsDone(streams, turns) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not every stream saw turn ${turns} within ${TURN_TIMEOUT_MS} ms`)), TURN_TIMEOUT_MS);
    const check = () => {
      if (streams.every((s) => s.turnsDone >= turns)) {
        clearTimeout(timer);
        for (const s of streams) s.onTurn = () => {};
        resolve(process.hrtime.bigint());
      }
    };
    for (const s of streams) s.onTurn = check;
    check();
  });
}

/** One daemon's session, its streams and what they measured, per placement (`turns[placement]`). */
async function watchedSession(name, proc, subscribers) {
  const client = keepAliveClient(proc.url);
  const { sessionId } = await createSession(client);
  const streams = [];
  for (let i = 0; i < subscribers; i += 1) streams.push(await openLightStream(proc.url, sessionId));
  return { name, pid: proc.pid, client, sessionId, streams, turns: 0, seen: 0, measured: {} };
}

/**
 * One prompt: POST, then every stream's turn_complete. With `placement`, the turn's time to the
 * last stream and the ids of the frames it sent are kept under that placement's name.
 */
async function fanTurn(d, placement) {
  const started = process.hrtime.bigint();
  const res = await d.client.post(`/session/${encodeURIComponent(d.sessionId)}/prompt`, { prompt: [{ type: 'text', text: PROMPT }] });
  if (res.status !== 202) throw new Error(`${d.name}: POST /session/:id/prompt -> ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
  d.turns += 1;
  const ended = await allTurnsDone(d.streams, d.turns);
  const ids = [...d.streams[0].arrivals.keys()].slice(d.seen);
  d.seen += ids.length;
  if (!placement) return;
  const m = (d.measured[placement] ??= { turnMs: [], ids: [] });
  m.turnMs.push(Number(ended - started) / 1e6);
  m.ids.push(...ids);
}

/**
 * Where the processes run while a turn is timed. `apart`: the daemons (each with its children) on
 * CPU 0, this process and the scripted model on the others, as subscribers on other machines would
 * be: the reader, woken by a daemon's first write of a frame, otherwise tends to be put on the
 * daemon's CPU and preempt it mid-frame, which puts the reader's work inside the spread (measured
 * with perf: bench/README.md, `fanout`). `shared`: every process may run on every CPU.
 */
function placements(daemons, model, log) {
  const everywhere = () => {
    for (const pid of [process.pid, model.pid]) pin(pid, ALL_CPUS);
    for (const d of daemons) pin(d.pid, ALL_CPUS, { tree: true });
  };
  const unavailable = pinningUnavailable();
  if (unavailable) {
    log(`bench: every process on every CPU only (${unavailable})`);
    return [{ name: 'shared', apply: everywhere }];
  }
  const clients = ALL_CPUS.replace(/^0/, '1');
  const apart = () => {
    for (const pid of [process.pid, model.pid]) pin(pid, clients);
    for (const d of daemons) pin(d.pid, '0', { tree: true });
  };
  return [
    { name: 'apart', apply: apart },
    { name: 'shared', apply: everywhere },
  ];
}

/** Every frame id (of `ids`, else all) that reached all streams: its spread in ms. */
export function spreads(d, ids = d.streams[0].arrivals.keys()) {
  const out = [];
  for (const id of ids) {
    const first = d.streams[0].arrivals.get(id);
    if (first === undefined) continue;
    let lo = first;
    let hi = first;
    let everywhere = true;
    for (const s of d.streams) {
      const at = s.arrivals.get(id);
      if (at === undefined) {
        everywhere = false;
        break;
      }
      if (at < lo) lo = at;
      if (at > hi) hi = at;
    }
    if (everywhere) out.push(Number(hi - lo) / 1e6);
  }
  return out;
}

export async function run({ quick = false, profileDir, log = console.error } = {}) {
  const plan = quick ? PLANS.quick : PLANS.full;
  return withBothDaemons(
    async ({ peer, berth, floor, model }) => {
      const control = model.url.replace(/\/v1$/, '');
      const scripted = await fetch(`${control}/__script`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rules: [{ lastUserContains: PROMPT, step: { kind: 'reply', text: REPLY, chunkChars: CHUNK_CHARS, delayMs: CHUNK_DELAY_MS } }] }),
      });
      if (!scripted.ok) throw new Error(`the scripted model refused the fan-out rule: ${scripted.status}`);
      const daemons = [];
      try {
        for (const [name, proc] of [['peer', peer], ['berth', berth], ['floor', floor]]) {
          daemons.push(await watchedSession(name, proc, plan.subscribers));
          log(`bench: ${name}: one session, ${plan.subscribers} streams open`);
        }
        const places = placements(daemons, model, log);
        try {
          for (const d of daemons) await fanTurn(d); // warm-up turn, not counted
          for (let r = 0; r < plan.rounds; r += 1) {
            // One prompt per daemon in turn, not a block of prompts each: the machine's load (other
            // processes preempting the daemon mid-write) changes within seconds and moves a spread by
            // more than the daemons differ, so each daemon's turns must sample the same moments.
            // The placements take turns the same way.
            const order = r % 2 === 0 ? daemons : [...daemons].reverse();
            for (let i = 0; i < plan.promptsPerRound; i += 1) {
              for (const place of r % 2 === 0 ? places : [...places].reverse()) {
                place.apply();
                for (const d of order) await fanTurn(d, place.name);
              }
            }
            log(`bench: round ${r + 1}/${plan.rounds} done`);
          }
        } finally {
          places.at(-1).apply();
        }
        const measured = places.map((place) => ({
          placement: place.name,
          daemons: daemons.map((d) => {
            const { turnMs, ids } = d.measured[place.name];
            const spread = spreads(d, ids);
            const busySeconds = turnMs.reduce((a, b) => a + b, 0) / 1000;
            return { name: d.name, spread, turnMs, framesPerTurn: spread.length / turnMs.length, rate: (spread.length * plan.subscribers) / busySeconds };
          }),
        }));
        return report(plan, measured);
      } finally {
        for (const d of daemons) {
          for (const s of d.streams) s.close();
          d.client.close();
        }
      }
    },
    { log, profileDir, withFloor: true },
  );
}

/** What each placement is called in the table: where the bench's readers ran. */
const PLACEMENT_WORDS = { apart: 'readers on another CPU', shared: 'CPUs shared' };

function report(plan, measured) {
  const fmt = (v) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 2 : 1) : '');
  const ratio = (a, b) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : '');
  const summaryJson = (s) => ({ n: s.n, median: round(s.median), p10: round(s.p10), p90: round(s.p90), min: round(s.min), max: round(s.max) });
  const rows = [];
  const jsonRows = [];
  const ratios = {};
  for (const { placement, daemons } of measured) {
    const words = PLACEMENT_WORDS[placement];
    const spread = Object.fromEntries(daemons.map((m) => [m.name, summarize(m.spread)]));
    const turn = Object.fromEntries(daemons.map((m) => [m.name, summarize(m.turnMs)]));
    for (const [id, sums] of [
      [`frame spread, ${plan.subscribers} streams, ${words}`, spread],
      [`prompt -> last stream's turn_complete, ${words}`, turn],
    ]) {
      rows.push([id, 'ms', ...['peer', 'berth', 'floor'].flatMap((n) => [fmt(sums[n].median), fmt(sums[n].p90)]), ratio(sums.berth.median, sums.peer.median), ratio(sums.berth.median, sums.floor.median)]);
      jsonRows.push({ id, unit: 'ms', ...Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, summaryJson(v)])) });
    }
    ratios[placement] = { spreadBerthOverPeer: round(spread.berth.median / spread.peer.median), spreadBerthOverFloor: round(spread.berth.median / spread.floor.median) };
  }
  const table = formatTable(['row', 'unit', 'peer median', 'p90', 'berth median', 'p90', 'floor median', 'p90', 'berth/peer', 'berth/floor'], rows);
  const perDaemon = (pick) => measured.map(({ placement, daemons }) => `${PLACEMENT_WORDS[placement]}: ${daemons.map((m) => `${m.name} ${pick(m)}`).join(', ')}`).join('; ');
  const notes = [
    `${plan.rounds} rounds of ${plan.promptsPerRound} prompts per daemon and placement, one prompt per daemon in turn, order reversing by round, after one warm-up turn`,
    `placements: ${measured.some((m) => m.placement === 'apart') ? 'readers on another CPU = the daemons (with their children) on CPU 0, this process (the 64 readers) and the scripted model on the others; ' : ''}CPUs shared = every process on every CPU; the two take turns prompt by prompt`,
    `frames per turn: ${perDaemon((m) => m.framesPerTurn.toFixed(1))}`,
    `frames delivered per second of turn time (frames x streams): ${perDaemon((m) => Math.round(m.rate).toLocaleString('en-US'))}`,
    `spread = last stream arrival - first stream arrival of one frame id, timed when its chunk came off the socket; model deltas ${CHUNK_DELAY_MS} ms apart; target: berth <= peer`,
  ];
  return {
    name,
    text: `${table}\n\n${notes.join('\n')}`,
    json: { plan, rows: jsonRows, ratios },
  };
}
