import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ScriptStep } from '../../src/devtools/scripted-model/index.js';
import { fuzzSeed, inParallel, KeepAliveClient, mib, MiB, openDescriptors, rssBytes, seededRandom, startFuzzTarget, type FuzzTarget } from '../support/fuzz.js';
import { watchHealth, type HealthWatch } from '../support/health-watch.js';

/**
 * Issue 16, "suites that keep it so", the soak: 50 sessions on a real `berth
 * serve`, each with an event-stream subscriber that reconnects now and then,
 * sent prompts the scripted model answers (quick ones, slow ones that get
 * cancelled, ones asking to write a file that wait for a permission vote the
 * subscriber casts), for `BERTH_SOAK_SECONDS` (60 by default; longer by
 * setting it). Resident memory and open descriptors are sampled throughout;
 * their slope over the second half (after warm-up) is printed and held to a
 * generous bound that a real leak — a stream, a timer or a session kept per
 * request — still exceeds; and once every subscriber is gone, descriptors
 * come back near where they started.
 *
 * The daemon runs with its JavaScript heap capped (SOAK_HEAP_MIB), so a leak
 * of JavaScript objects ends the run as an out-of-memory crash the test sees,
 * and warm-up — V8 growing its heap toward the size this load needs, the
 * sessions' replay rings filling — is over sooner. A 60 s run without the cap
 * measured 49 MiB/min: its second half was still warm-up. With a 96 MiB cap
 * over 150 s, RSS rose 135 → 210 MiB in the first 76 s, then fell back and
 * stayed at 182–187 MiB (second-half slope −12 MiB/min), the daemon up and
 * answering: no leak, and the reason the default run is long enough to pass
 * warm-up.
 */

const SESSIONS = 50;
const SECONDS = Number(process.env.BERTH_SOAK_SECONDS ?? 120);
/** The daemon's heap cap: a JavaScript leak becomes a crash, not a slope to argue about. */
const SOAK_HEAP_MIB = 256;
/** Generous: a leak of one 64 KiB buffer per prompt at this rate is ~25 MiB/min. */
const RSS_SLOPE_BOUND = 24 * MiB; // per minute
/** A descriptor kept per reconnect or per prompt would be hundreds per minute. */
const FD_SLOPE_BOUND = 60; // per minute
const FD_SETTLE_BOUND = 40;

let target: FuzzTarget;
let http: KeepAliveClient;
let health: HealthWatch;
const seed = fuzzSeed('soak sessions', `${SESSIONS} sessions for ${SECONDS} s`);
const random = seededRandom(seed);

before(async () => {
  target = await startFuzzTarget({ args: ['--session-idle-timeout-ms', '0'], env: { NODE_OPTIONS: `--max-old-space-size=${SOAK_HEAP_MIB}` } });
  http = new KeepAliveClient(target.url, 24);
  health = await watchHealth(target.url, { everyMs: 1_000 });
  let n = 0;
  target.stack.model.setRule((req): ScriptStep => {
    const last = (req.body.messages as Array<{ role: string }>).at(-1)?.role;
    if (last === 'tool') return { kind: 'reply', text: 'Done.' };
    if (req.lastUserText.startsWith('write')) {
      return { kind: 'reply', toolCalls: [{ name: 'workspace_write', arguments: { path: `soak/${++n}.txt`, content: 'soak\n', expectedSha256: null } }] };
    }
    if (req.lastUserText.startsWith('slow')) return { kind: 'reply', text: 'slowly '.repeat(40), chunkChars: 7, delayMs: 25 };
    return { kind: 'reply', text: 'OK.' };
  });
});
after(async () => {
  await health?.stop();
  http?.close();
  await target?.close();
});

interface Session {
  id: string;
  clientId: string;
}

const post = (path: string, body: unknown, clientId?: string) =>
  http.send({ method: 'POST', path, headers: { 'content-type': 'application/json', ...(clientId ? { 'x-qwen-client-id': clientId } : {}) }, body: JSON.stringify(body) });

/** A subscriber: reads the session's stream, votes on every permission request, and is replaced by the soak now and then. */
function subscribe(s: Session, tally: Tally): AbortController {
  const abort = new AbortController();
  void (async () => {
    try {
      const res = await fetch(`${target.url}/session/${s.id}/events`, { headers: { accept: 'text/event-stream', 'x-qwen-client-id': s.clientId }, signal: abort.signal });
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        const lines = buffer.split('\n');
        buffer = lines.pop()!;
        for (const line of lines) {
          if (!line.startsWith('data:') || !line.includes('"requestId"') || !line.includes('options')) continue;
          const data = JSON.parse(line.slice(5));
          const request = data.requestId ? data : data.data;
          if (!request?.requestId || !Array.isArray(request.options)) continue;
          const option = request.options.find((o: { optionId: string }) => /allow|proceed/.test(o.optionId)) ?? request.options[0];
          const vote = await post(`/session/${s.id}/permission/${request.requestId}`, { outcome: { outcome: 'selected', optionId: option.optionId } }, s.clientId);
          tally.votes++;
          if (vote.status >= 500) tally.fivexx.push(`vote ${vote.status} ${vote.body.slice(0, 200)}`);
        }
      }
    } catch {
      /* aborted for a reconnect, or the soak ended */
    }
  })();
  return abort;
}

interface Tally {
  prompts: number;
  cancels: number;
  votes: number;
  reconnects: number;
  refusals: Map<number, number>;
  fivexx: string[];
}

/** Least-squares slope of `y` over `x` (per unit of x). */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const num = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const den = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

test(`${SESSIONS} sessions with subscribers, prompts, cancels, votes and reconnects for ${SECONDS} s keep memory and descriptors flat`, {
  timeout: (SECONDS + 240) * 1000,
}, async () => {
  const fdsAtStart = openDescriptors(target.pid);
  const tally: Tally = { prompts: 0, cancels: 0, votes: 0, reconnects: 0, refusals: new Map(), fivexx: [] };
  const sessions: Session[] = await inParallel(Array.from({ length: SESSIONS }), 8, async () => {
    const r = JSON.parse((await post('/session', { sessionScope: 'thread' })).body);
    return { id: r.sessionId, clientId: r.clientId };
  });
  const subscribers = new Map(sessions.map((s) => [s.id, subscribe(s, tally)]));
  const samples: Array<{ t: number; rss: number; fds: number }> = [];
  const started = performance.now();
  // A daemon that died has no /proc entry: stop sampling and let the liveness assertion below report it.
  const sampler = setInterval(() => {
    if (!target.alive()) return clearInterval(sampler);
    samples.push({ t: (performance.now() - started) / 60_000, rss: rssBytes(target.pid), fds: openDescriptors(target.pid) });
  }, 2_000);

  const deadline = started + SECONDS * 1000;
  await inParallel(sessions, SESSIONS, async (s) => {
    while (performance.now() < deadline) {
      const r = random();
      if (r < 0.05) {
        subscribers.get(s.id)!.abort();
        subscribers.set(s.id, subscribe(s, tally));
        tally.reconnects++;
      } else {
        const text = r < 0.35 ? 'write a file' : r < 0.65 ? 'slow answer' : 'quick answer';
        const sent = await post(`/session/${s.id}/prompt`, { prompt: [{ type: 'text', text }] }, s.clientId);
        tally.prompts++;
        // A full queue is the daemon's capacity answer (503 prompt_queue_full, retryable), counted with the refusals.
        if (sent.status >= 500 && !sent.body.includes('"prompt_queue_full"')) tally.fivexx.push(`prompt ${sent.status} ${sent.body.slice(0, 200)}`);
        else if (sent.status !== 202) tally.refusals.set(sent.status, (tally.refusals.get(sent.status) ?? 0) + 1);
        if (text.startsWith('slow') && random() < 0.5) {
          await new Promise((res) => setTimeout(res, Math.floor(random() * 300)));
          const cancelled = await post(`/session/${s.id}/cancel`, {}, s.clientId);
          tally.cancels++;
          if (cancelled.status >= 500) tally.fivexx.push(`cancel ${cancelled.status} ${cancelled.body.slice(0, 200)}`);
        }
      }
      await new Promise((res) => setTimeout(res, 200 + Math.floor(random() * 400)));
    }
  });
  clearInterval(sampler);

  for (const a of subscribers.values()) a.abort();
  // Descriptors settle once the streams are gone (the daemon notices each closed socket).
  let fdsAfter = openDescriptors(target.pid);
  for (let i = 0; i < 100 && fdsAfter > fdsAtStart + FD_SETTLE_BOUND; i++) {
    await new Promise((res) => setTimeout(res, 100));
    fdsAfter = openDescriptors(target.pid);
  }

  const late = samples.filter((s) => s.t >= samples.at(-1)!.t / 2);
  const rssSlope = slope(late.map((s) => [s.t, s.rss]));
  const fdSlope = slope(late.map((s) => [s.t, s.fds]));
  const healthFigures = await health.stop();
  console.log(
    `# soak: ${SESSIONS} sessions, ${SECONDS} s: ${tally.prompts} prompts (refused ${JSON.stringify(Object.fromEntries(tally.refusals))}), ${tally.cancels} cancels, ${tally.votes} votes, ${tally.reconnects} reconnects; ` +
      `rss ${mib(samples[0]!.rss)} → ${mib(samples.at(-1)!.rss)}, second-half slope ${mib(rssSlope)}/min (bound ${mib(RSS_SLOPE_BOUND)}/min); ` +
      `descriptors ${fdsAtStart} at start, ${samples.at(-1)!.fds} at the end of load, ${fdsAfter} after the subscribers left, second-half slope ${fdSlope.toFixed(1)}/min (bound ${FD_SLOPE_BOUND}/min); ` +
      `5xx ${tally.fivexx.length}; /health probes ${healthFigures.probes}, failures ${healthFigures.failures.length}, p50 ${healthFigures.p50Ms} ms, slowest ${healthFigures.maxMs} ms`,
  );
  const every = Math.max(1, Math.round(samples.length / 12));
  console.log(`# soak rss over time: ${samples.filter((_, i) => i % every === 0).map((p) => `${(p.t * 60).toFixed(0)} s ${mib(p.rss)}`).join(', ')}`);
  assert.ok(target.alive(), `the daemon is still running (heap cap ${SOAK_HEAP_MIB} MiB): ${target.daemon.stderr().slice(-1_000)}`);
  assert.deepEqual(healthFigures.failures, []);
  assert.deepEqual(tally.fivexx, []);
  assert.ok(tally.prompts > SESSIONS * 5 && tally.votes > 0 && tally.cancels > 0 && tally.reconnects > 0, 'every kind of traffic happened');
  assert.ok(rssSlope < RSS_SLOPE_BOUND, `memory grows ${mib(rssSlope)}/min`);
  assert.ok(fdSlope < FD_SLOPE_BOUND, `descriptors grow ${fdSlope.toFixed(1)}/min`);
  assert.ok(fdsAfter <= fdsAtStart + FD_SETTLE_BOUND, `descriptors: ${fdsAtStart} at start, ${fdsAfter} after`);
});
