import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import WebSocket from 'ws';
import { CLOSE } from '../../src/protocol/gateway/frames.js';
import { createToken, FUZZ_RUNS, fuzzSeed, KeepAliveClient, mib, MiB, rssBytes, startFuzzTarget, type FuzzTarget } from '../support/fuzz.js';
import { watchHealth, type HealthWatch } from '../support/health-watch.js';
import { hostileString, hostileValue, nestedJson, protoBody } from '../support/fuzz-values.js';

/**
 * Issue 16, "suites that keep it so", the gateway channel face (seed 000):
 * owners connected with channel tokens send generated frames to a real
 * `berth serve` hosting a remote workspace — well-formed results naming no
 * call (which B ignores), near-valid results (a field missing or of a wrong
 * type, another frame type) and hostile text (not JSON, prototype keys, deep
 * nesting, binary, huge). Every connection ends with one frame B must refuse,
 * so that B's close proves it read every frame before it. Invariants: the
 * process stays up and `/health` answers; every channel is closed with a
 * code for a peer's fault, never 1011 and never left hanging; no frame
 * creates a call or leaves a channel behind (deep health's gateway counters
 * return to zero); memory stays within a bound.
 */

const WORKSPACE = 'proj-fuzz';
/** Connections at once: four tokens, each under its four channels (seed 000 `channelsPerToken`). */
const TOKENS = 4;
const PER_TOKEN = 3;
const RSS_GROWTH_BOUND = 128 * MiB;
const PEER_FAULT_CLOSES = new Set<number>([CLOSE.protocolError, CLOSE.unsupportedData, CLOSE.invalidPayload, CLOSE.policyViolation, CLOSE.tooBig]);

let target: FuzzTarget;
let http: KeepAliveClient;
let health: HealthWatch;
const tokens: string[] = [];
const seed = fuzzSeed('fuzz gateway frames');

before(async () => {
  target = await startFuzzTarget({
    args: ['--session-idle-timeout-ms', '0', '--remote-workspace', `${WORKSPACE}=fuzz the channel`],
    async beforeServe(stack) {
      for (let i = 0; i < TOKENS; i++) tokens.push(await createToken(stack.home, { channel: WORKSPACE }));
    },
  });
  http = new KeepAliveClient(target.url, 2);
  health = await watchHealth(target.url, { everyMs: 250 });
});
after(async () => {
  await health?.stop();
  http?.close();
  await target?.close();
});

type Send = { text: string | Buffer; binary?: boolean };

const str = (max: number) => fc.string({ minLength: 1, maxLength: max });

/** A result B must ignore: well-formed, naming no call in flight. */
const ignoredResult = fc.record({ id: str(64), sessionId: fc.oneof(fc.uuid(), str(64)), result: fc.string({ maxLength: 300 }) }).map((r): Send => ({ text: JSON.stringify({ type: 'result', ...r }) }));

const nearValid = fc
  .record({
    type: fc.constantFrom('result', 'call', 'ready', 'RESULT', ''),
    id: fc.oneof(str(64), hostileValue(), fc.constant('x'.repeat(10_000))),
    sessionId: fc.oneof(fc.uuid(), hostileValue()),
    result: fc.oneof(fc.string({ maxLength: 100 }), hostileValue()),
    drop: fc.constantFrom('none', 'id', 'sessionId', 'result', 'type'),
    extra: fc.option(fc.tuple(fc.string({ maxLength: 10 }), hostileValue()), { nil: undefined }),
  })
  .map((f): Send => {
    const o: Record<string, unknown> = { type: f.type, id: f.id, sessionId: f.sessionId, result: f.result };
    if (f.drop !== 'none') delete o[f.drop];
    if (f.extra) o[f.extra[0]] = f.extra[1];
    return { text: JSON.stringify(o) };
  });

const hostile = fc.oneof(
  hostileValue().map((v): Send => ({ text: JSON.stringify(v) ?? 'null' })),
  hostileString().map((s): Send => ({ text: s })),
  protoBody().map((text): Send => ({ text })),
  fc.integer({ min: 10, max: 20_000 }).map((d): Send => ({ text: nestedJson(d, d % 2 === 0) })),
  fc.integer({ min: 10, max: 5_000 }).map((d): Send => ({ text: `{"type":"result","id":"a","sessionId":"b","result":${nestedJson(d, true)}}` })),
  fc.uint8Array({ maxLength: 100 }).map((b): Send => ({ text: Buffer.from(b), binary: true })),
  fc.uint8Array({ minLength: 1, maxLength: 100 }).map((b): Send => ({ text: Buffer.concat([Buffer.from([0xc0, 0x80]), Buffer.from(b)]) })),
);

/** One connection's frames: a few B ignores, then one near-valid or hostile frame, then the closing barrier. */
const connectionFrames = fc
  .tuple(fc.array(ignoredResult, { maxLength: 12 }), fc.oneof(nearValid, hostile))
  .map(([ignored, last]) => [...ignored, last]);
const BARRIER: Send = { text: 'not json: B closes here' };

const describeSend = (s: Send) => `${s.binary ? '[binary] ' : ''}${String(s.text).slice(0, 300)}${s.text.length > 300 ? `…(${s.text.length})` : ''}`;

function channel(token: string): Promise<WebSocket> {
  const ws = new WebSocket(`${target.url.replace(/^http/, 'ws')}/api/ai-gateway/v1/workspaces/${WORKSPACE}/channel`, { headers: { authorization: `Bearer ${token}` } });
  return new Promise((resolve, reject) => {
    ws.once('message', () => resolve(ws)); // `ready`
    ws.once('unexpected-response', (_req, res) => reject(new Error(`channel refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

async function counters(): Promise<{ gatewayChannels: number; gatewayCallsInFlight: number; gatewayCallsWaiting: number }> {
  return JSON.parse((await http.send({ method: 'GET', path: '/health?deep=1' })).body);
}

test(`closes ${FUZZ_RUNS} generated gateway frames' channels for the peer's fault only, creates no call, never crashes`, { timeout: 600_000 }, async () => {
  let frames = 0;
  let connections = 0;
  const closes = new Map<number, number>();
  const problems: string[] = [];
  const rssBefore = rssBytes(target.pid);
  const started = performance.now();
  const lanes = TOKENS * PER_TOKEN;
  // fast-check keeps most arrays short: a sixth of FUZZ_RUNS connections once sent only 9,410 frames; a fifth
  // (2,004 channels) sent 13,287 with the fixed seed, at least FUZZ_RUNS with room to spare.
  const perLane = Math.ceil(FUZZ_RUNS / 5 / lanes);

  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      const run = await fc.check(
        fc.asyncProperty(connectionFrames, async (sends) => {
          const ws = await channel(tokens[lane % TOKENS]!);
          const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
          ws.on('error', () => undefined);
          for (const s of [...sends, BARRIER]) ws.send(s.text, { binary: Boolean(s.binary) });
          const outcome = await Promise.race([closed, new Promise<'silent'>((r) => setTimeout(() => r('silent'), 30_000).unref())]);
          frames += sends.length + 1;
          connections++;
          let wrong: string | null = null;
          if (outcome === 'silent') wrong = 'B never closed the channel after a frame it must refuse';
          else {
            closes.set(outcome.code, (closes.get(outcome.code) ?? 0) + 1);
            if (!PEER_FAULT_CLOSES.has(outcome.code)) wrong = `closed with ${outcome.code} ${outcome.reason}`;
          }
          if (!target.alive()) wrong = `the daemon exited: ${target.daemon.stderr().slice(-2_000)}`;
          if (wrong === null) return true;
          ws.terminate();
          problems.push(`lane ${lane}: ${wrong}\n  frames:\n  ${sends.map(describeSend).join('\n  ')}`.slice(0, 6_000));
          return false;
        }),
        { seed: seed + lane, numRuns: perLane, endOnFailure: true },
      );
      assert.ok(!run.failed, `seed ${seed + lane} (lane ${lane}): ${String(run.errorInstance ?? '')}\n${problems.join('\n')}`);
    }),
  );

  // No frame made a call, and every channel B closed is gone from its counters.
  let after = await counters();
  for (let i = 0; i < 200 && after.gatewayChannels !== 0; i++) {
    await new Promise((r) => setTimeout(r, 25));
    after = await counters();
  }
  const rssAfter = rssBytes(target.pid);
  const healthFigures = await health.stop();
  console.log(
    `# fuzz gateway frames: ${frames} frames on ${connections} channels in ${((performance.now() - started) / 1000).toFixed(1)} s; closes ${JSON.stringify(Object.fromEntries(closes))}; ` +
      `counters after ${JSON.stringify({ channels: after.gatewayChannels, inFlight: after.gatewayCallsInFlight, waiting: after.gatewayCallsWaiting })}; rss ${mib(rssBefore)} → ${mib(rssAfter)}; ` +
      `/health probes ${healthFigures.probes}, failures ${healthFigures.failures.length}, p50 ${healthFigures.p50Ms} ms, slowest ${healthFigures.maxMs} ms`,
  );
  assert.deepEqual([after.gatewayChannels, after.gatewayCallsInFlight, after.gatewayCallsWaiting], [0, 0, 0]);
  assert.ok(target.alive());
  assert.deepEqual(healthFigures.failures, []);
  assert.ok(frames >= FUZZ_RUNS, `${frames} frames sent`);
  assert.ok(rssAfter - rssBefore < RSS_GROWTH_BOUND, `resident memory grew ${mib(rssAfter - rssBefore)}, bound ${mib(RSS_GROWTH_BOUND)}`);
});
