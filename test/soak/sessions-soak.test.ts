import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ScriptStep } from '../../src/devtools/scripted-model/index.js';
import { fuzzSeed, inParallel, KeepAliveClient, mib, MiB, openDescriptors, rssBytes, seededRandom, startFuzzTarget, type FuzzTarget } from '../support/fuzz.js';
import { watchHealth, type HealthWatch } from '../support/health-watch.js';
import { removeDir, tempDir } from '../support/tmp.js';

/**
 * Issue 16, "suites that keep it so", the soak: 50 sessions on a real `berth
 * serve`, each with an event-stream subscriber that reconnects now and then,
 * sent prompts the scripted model answers (quick ones, slow ones that get
 * cancelled, ones asking to write a file that wait for a permission vote the
 * subscriber casts), for `BERTH_SOAK_SECONDS` (120 by default; longer by
 * setting it).
 *
 * What is measured, and why. Resident memory from outside mixes three things:
 * what the daemon keeps, what V8 has not collected yet, and pages V8 and the C
 * allocator hold without using. A preload in the daemon
 * (test/support/memory-probe.cjs) runs a full collection every PROBE_MS and
 * records the heap left after it — what the JavaScript side keeps — with
 * external memory, array buffers and RSS. Runs of 300 s showed the split: the
 * heap after collection levels off once warm-up is over, while V8's committed
 * old space keeps growing under steady load (one run: 53 → 90 MiB committed
 * with 44-46 MiB live; another: RSS 157 → 228 MiB). That is not a leak: it is
 * bounded by the heap cap, and falls back when V8 reduces its heap (the
 * collection for a heap snapshot took old space to 43 MiB).
 * RSS outside the heap stayed 95-103 MiB, and MALLOC_ARENA_MAX=2 changed
 * nothing (highest RSS 214 MiB against 212 in a default run). So the soak holds the heap after
 * collection to a slope bound and RSS to a ceiling, and prints the RSS slope.
 *
 * The heap slope found two leaks, each fixed with its own test: every model
 * call of the built-in agent stayed in memory (an `AbortSignal.any` signal
 * handed to `openai`, kept by Node 20: test/unit/agents/model-call-signals),
 * about 2.5 MiB/min here; and an event stream whose client left while the
 * request was routed held its subscriber slot and response for good
 * (test/unit/http/sse-stream). With both fixed, a 300 s run's heap after
 * collection was 40.0 MiB at 47 s and 40.4-42.7 MiB from then to the end.
 *
 * The daemon runs with its JavaScript heap capped (SOAK_HEAP_MIB), so a
 * faster leak ends the run as an out-of-memory crash the test sees. What
 * grows by design is bounded small enough to be over within warm-up: each
 * session's replay ring (SOAK_RING_EVENTS) and its conversation, compacted
 * at 80% of a small context window (SOAK_CONTEXT_WINDOW). With the default
 * window (32,000 tokens for a model nobody describes) a conversation takes
 * longer than the run to fill at this load, so the heap after collection
 * kept growing by design (41 → 51 MiB over a 300 s run, the leaks still in).
 *
 * `BERTH_SOAK_SNAPSHOTS=<folder>` keeps the probe's samples there and has the
 * daemon write a heap snapshot at 40% and 95% of the run (each stalls the
 * daemon for seconds, so /health may fail): compare them by constructor to
 * find what grows.
 */

const SESSIONS = 50;
const SECONDS = Number(process.env.BERTH_SOAK_SECONDS ?? 120);
/** The daemon's heap cap: a fast JavaScript leak becomes a crash, not a slope to argue about. */
const SOAK_HEAP_MIB = 192;
/**
 * Each session keeps its last events for replay (8,000 by default): at this
 * load 50 full rings are hundreds of MiB, and filling them takes longer than
 * the run, so a slope measured with the default is the rings filling, not a
 * leak (an earlier run: 35 MiB/min, and a crash at a 128 MiB heap). A small
 * ring fills within seconds; what grows after that is what this soak is for.
 */
const SOAK_RING_EVENTS = 200;
/**
 * The scripted model's context window, in tokens: compaction starts at 80% of
 * it, and the built-in tools' definitions alone are about 2,700 of them, so a
 * conversation compacts after some 20 prompts (half a minute at this load)
 * and every session has been through it before the second half. Compaction
 * is soaked too.
 */
const SOAK_CONTEXT_WINDOW = 6_000;
/**
 * The heap after a full collection, over the second half. Healthy 300 s runs
 * measured 0-1 MiB/min from 60 s on (samples vary by about ±0.5 MiB), the
 * default run 0.5 MiB/min; with the model-call fix reverted the default run
 * measured 4.1 MiB/min and failed.
 */
const HEAP_SLOPE_BOUND = 2 * MiB; // per minute
/**
 * RSS may grow while V8 commits old space it does not give back under load,
 * but not past the heap cap plus the young generation (32 MiB) plus what lives
 * outside the heap (95-103 MiB measured; allowed 160).
 */
const RSS_CEILING = (SOAK_HEAP_MIB + 32 + 160) * MiB;
/** A descriptor kept per reconnect or per prompt would be hundreds per minute. */
const FD_SLOPE_BOUND = 60; // per minute
const FD_SETTLE_BOUND = 40;

/** How often the daemon's memory probe collects and records (test/support/memory-probe.cjs). */
const PROBE_MS = 5_000;
const snapshotDir = process.env.BERTH_SOAK_SNAPSHOTS;
const probeDir = snapshotDir ?? tempDir('berth-soak-probe-');
const probeFile = join(probeDir, 'memory.jsonl');
const probePath = new URL('../support/memory-probe.cjs', import.meta.url).pathname;

interface ProbeSample {
  t: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  rss: number;
}
const probeSamples = (): ProbeSample[] =>
  existsSync(probeFile) ? readFileSync(probeFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as ProbeSample) : [];

let target: FuzzTarget;
let http: KeepAliveClient;
let health: HealthWatch;
const seed = fuzzSeed('soak sessions', `${SESSIONS} sessions for ${SECONDS} s`);
const random = seededRandom(seed);

before(async () => {
  target = await startFuzzTarget({
    args: ['--session-idle-timeout-ms', '0', '--event-ring-size', String(SOAK_RING_EVENTS)],
    env: {
      NODE_OPTIONS: [
        `--max-old-space-size=${SOAK_HEAP_MIB} --expose-gc --require ${probePath}`,
        ...(snapshotDir ? [`--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshotDir}`] : []),
      ].join(' '),
      BERTH_MEMORY_PROBE_FILE: probeFile,
      BERTH_MEMORY_PROBE_MS: String(PROBE_MS),
    },
    beforeServe: async (stack) => {
      const file = join(stack.home, 'config.json');
      const config = JSON.parse(readFileSync(file, 'utf8'));
      for (const model of config.modelServices[0].models) model.contextWindow = SOAK_CONTEXT_WINDOW;
      writeFileSync(file, JSON.stringify(config));
    },
  });
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
  if (!snapshotDir) removeDir(probeDir);
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
  if (snapshotDir) for (const at of [0.4, 0.95]) setTimeout(() => process.kill(target.pid, 'SIGUSR2'), at * SECONDS * 1000).unref();
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
  // The probe's samples under load; its clock starts with the daemon, so the second half is counted back from the last.
  const probe = probeSamples();

  for (const a of subscribers.values()) a.abort();
  // Descriptors settle once the streams are gone (the daemon notices each closed socket).
  let fdsAfter = openDescriptors(target.pid);
  for (let i = 0; i < 100 && fdsAfter > fdsAtStart + FD_SETTLE_BOUND; i++) {
    await new Promise((res) => setTimeout(res, 100));
    fdsAfter = openDescriptors(target.pid);
  }

  const late = samples.filter((s) => s.t >= samples.at(-1)!.t / 2);
  const rssSlope = slope(late.map((s) => [s.t, s.rss]));
  const rssMax = Math.max(...samples.map((s) => s.rss));
  const fdSlope = slope(late.map((s) => [s.t, s.fds]));
  const probeLate = probe.filter((p) => p.t >= probe.at(-1)!.t - SECONDS / 2);
  const heapSlope = slope(probeLate.map((p) => [p.t / 60, p.heapUsed]));
  const healthFigures = await health.stop();
  console.log(
    `# soak: ${SESSIONS} sessions, ${SECONDS} s: ${tally.prompts} prompts (refused ${JSON.stringify(Object.fromEntries(tally.refusals))}), ${tally.cancels} cancels, ${tally.votes} votes, ${tally.reconnects} reconnects; ` +
      `heap after full GC ${mib(probeLate[0]!.heapUsed)} → ${mib(probe.at(-1)!.heapUsed)} over the second half, slope ${mib(heapSlope)}/min (bound ${mib(HEAP_SLOPE_BOUND)}/min); ` +
      `rss ${mib(samples[0]!.rss)} → ${mib(samples.at(-1)!.rss)}, highest ${mib(rssMax)} (ceiling ${mib(RSS_CEILING)}), second-half slope ${mib(rssSlope)}/min; ` +
      `descriptors ${fdsAtStart} at start, ${samples.at(-1)!.fds} at the end of load, ${fdsAfter} after the subscribers left, second-half slope ${fdSlope.toFixed(1)}/min (bound ${FD_SLOPE_BOUND}/min); ` +
      `5xx ${tally.fivexx.length}; /health probes ${healthFigures.probes}, failures ${healthFigures.failures.length}, p50 ${healthFigures.p50Ms} ms, slowest ${healthFigures.maxMs} ms`,
  );
  console.log(
    `# soak memory after full GC (heap used/committed, external, array buffers, rss): ${probe.map((p) => `${p.t.toFixed(0)} s ${mib(p.heapUsed)}/${mib(p.heapTotal)} ${mib(p.external)} ${mib(p.arrayBuffers)} ${mib(p.rss)}`).join('; ')}`,
  );
  assert.ok(target.alive(), `the daemon is still running (heap cap ${SOAK_HEAP_MIB} MiB): ${target.daemon.stderr().slice(-1_000)}`);
  if (!snapshotDir) assert.deepEqual(healthFigures.failures, []);
  assert.deepEqual(tally.fivexx, []);
  assert.ok(tally.prompts > SESSIONS * 5 && tally.votes > 0 && tally.cancels > 0 && tally.reconnects > 0, 'every kind of traffic happened');
  assert.ok(probeLate.length >= 4, `the memory probe sampled the second half (${probeLate.length} samples)`);
  assert.ok(heapSlope < HEAP_SLOPE_BOUND, `the heap kept after a full collection grows ${mib(heapSlope)}/min`);
  assert.ok(rssMax < RSS_CEILING, `resident memory reached ${mib(rssMax)}`);
  assert.ok(fdSlope < FD_SLOPE_BOUND, `descriptors grow ${fdSlope.toFixed(1)}/min`);
  assert.ok(fdsAfter <= fdsAtStart + FD_SETTLE_BOUND, `descriptors: ${fdsAtStart} at start, ${fdsAfter} after`);
});
