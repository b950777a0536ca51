import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { CATALOG_SCHEMA } from '../../src/protocol/tools/catalog.js';
import type { TestDaemon } from '../support/daemon.js';
import { createToken, FUZZ_RUNS, fuzzSeed, KeepAliveClient, mib, MiB, rssBytes, startFuzzTarget, type FuzzTarget } from '../support/fuzz.js';
import { watchHealth, type HealthWatch } from '../support/health-watch.js';
import { hostileString, hostileValue, nestedJson, protoBody } from '../support/fuzz-values.js';
import { definitionsAnswer, indexAnswer, RawApp, wrap, type Frame } from '../support/raw-app.js';

/**
 * Issue 16, "suites that keep it so", the tool protocol face (seed 003):
 * applications connected with their own tokens send generated frames —
 * near-valid envelopes of every application frame type, announcements with
 * generated catalogs, payloads wrapped or not, and hostile text (not JSON,
 * prototype keys, deep nesting, binary frames, bad gzip wrappers) — to a real
 * `berth serve`. Invariants: the process stays up and `/health` answers; no
 * frame is answered `internal_error`; a connection is closed only with a
 * documented code; memory stays within a bound; and when every frame of a
 * batch was refused, the daemon acted on none of it: it sent the application
 * nothing but the refusals (an accepted announcement would have made it query
 * the catalog again).
 */

/** Frames per connection: under the 64 bad frames (MAX_APP_PROTOCOL_ERRORS) after which the daemon hangs up. */
const BATCH = 50;
/** Applications fuzzed at once, each on its own token (a second connection of one application replaces the first). */
const LANES = 4;
const RSS_GROWTH_BOUND = 192 * MiB;
/** Close codes seed 003 and the WebSocket RFC give for a peer's fault. */
const PEER_FAULT_CLOSES = new Set([1002, 1003, 1007, 1008, 1009]);

let target: FuzzTarget;
let http: KeepAliveClient;
let health: HealthWatch;
const tokens: string[] = [];
const seed = fuzzSeed('fuzz tool protocol frames');

before(async () => {
  target = await startFuzzTarget({
    args: ['--session-idle-timeout-ms', '0'],
    async beforeServe(stack) {
      for (let i = 0; i < LANES; i++) tokens.push(await createToken(stack.home, { app: `lane${i}`, maxPolicy: 'write' }));
    },
  });
  http = new KeepAliveClient(target.url, 4);
  health = await watchHealth(target.url, { everyMs: 250 });
});
after(async () => {
  await health?.stop();
  http?.close();
  await target?.close();
});

type Send = { kind: 'valid' | 'near-valid' | 'hostile'; text: string | Buffer; binary?: boolean };

const TYPES = ['tool.catalog', 'tool.result', 'tool.error', 'tool.batch.result', 'tool.call', 'tool.query', 'x', ''] as const;

const definition = (lane: number) =>
  fc.record({
    id: fc.oneof(fc.constant(`lane${lane}.echo`), fc.stringMatching(/^[a-z][a-z0-9_.-]{0,30}$/).map((s) => `lane${lane}.${s}`), hostileString()),
    policy: fc.constantFrom('read', 'write', 'critical', 'none'),
    inputSchema: fc.oneof(
      fc.constant({ type: 'object', properties: { text: { type: 'string' } } }),
      fc.constant({ type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] }),
      hostileValue(),
    ),
  });

/** A catalog announcement (index or definitions), plain or gzip-wrapped, mostly well-formed. */
const announcement = (lane: number) =>
  fc
    .record({ tools: fc.array(definition(lane), { maxLength: 5 }), revision: fc.string({ maxLength: 20 }), detail: fc.constantFrom('index', 'definitions', 'other'), wrapped: fc.boolean() })
    .map(({ tools, revision, detail, wrapped }) => {
      const payload = {
        schema: CATALOG_SCHEMA,
        revision: `sha256:${revision}`,
        availabilityRevision: 'sha256:a',
        evaluatedAtUtc: new Date(0).toISOString(),
        detail,
        tools: tools.map((t) => ({ ...t, name: String(t.id), description: 'fuzz', category: 'fuzz', definitionRevision: 'sha256:d' })),
        count: tools.length,
        totalCount: tools.length,
        categories: { fuzz: tools.length },
      };
      return wrapped ? wrap(payload) : payload;
    });

/** A text frame that is not UTF-8: the WebSocket layer closes with 1007, so it only ever ends a batch. */
const notUtf8 = fc.oneof(
  { weight: 19, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b): Send => ({ kind: 'hostile', text: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(b)]) })) },
);

/** A bad `gzip-base64-json` wrapper: wrong encoding name, not base64, not gzip, lying sizes. */
const badWrapper = fc.constantFrom(
  { ...wrap({}), $ansightEncoding: 'brotli-base64-json' },
  { ...wrap({}), data: '!!!' },
  { ...wrap({}), data: Buffer.from('not gzip').toString('base64') },
  { ...wrap({ a: 1 }), originalByteCount: 1e12 },
  { ...wrap({ a: 1 }), compressedByteCount: -1 },
  { $ansightEncoding: 'gzip-base64-json' },
);

function frames(lane: number): fc.Arbitrary<Send> {
  const envelope = fc
    .record({
      type: fc.constantFrom(...TYPES),
      id: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), hostileValue()),
      replyTo: fc.option(fc.oneof(fc.constantFrom('host_1', 'host_2', 'host_999'), hostileValue()), { nil: undefined }),
      sessionId: fc.option(fc.oneof(fc.uuid(), hostileValue()), { nil: undefined }),
      sentAt: fc.option(fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), hostileValue()), { nil: undefined }),
      capability: fc.option(fc.oneof(fc.constant('tool.exec'), hostileValue()), { nil: undefined }),
      payload: fc.oneof(announcement(lane), hostileValue(), badWrapper, fc.constant(undefined)),
      extra: fc.option(fc.tuple(fc.string({ maxLength: 8 }), hostileValue()), { nil: undefined }),
    })
    .map((f): Send => {
      const o: Record<string, unknown> = { type: f.type, id: f.id };
      for (const k of ['replyTo', 'sessionId', 'sentAt', 'capability', 'payload'] as const) if (f[k] !== undefined) o[k] = f[k];
      if (f.extra) o[f.extra[0]] = f.extra[1];
      return { kind: 'near-valid', text: JSON.stringify(o) };
    });
  const catalog = fc.tuple(announcement(lane), fc.string({ minLength: 1, maxLength: 12 })).map(([payload, id]): Send => ({ kind: 'valid', text: JSON.stringify({ type: 'tool.catalog', id, payload }) }));
  const hostile = fc.oneof(
    hostileValue().map((v): Send => ({ kind: 'hostile', text: JSON.stringify(v) ?? 'null' })),
    hostileString().map((s): Send => ({ kind: 'hostile', text: s })),
    protoBody().map((s): Send => ({ kind: 'hostile', text: s })),
    fc.integer({ min: 10, max: 20_000 }).map((d): Send => ({ kind: 'hostile', text: `{"type":"tool.catalog","id":"deep","payload":${nestedJson(d, d % 2 === 0)}}` })),
    fc.uint8Array({ maxLength: 200 }).map((b): Send => ({ kind: 'hostile', text: Buffer.from(b), binary: true })),
  );
  return fc.oneof({ weight: 2, arbitrary: catalog }, { weight: 5, arbitrary: envelope }, { weight: 4, arbitrary: hostile });
}

const describeSend = (s: Send) => `[${s.kind}${s.binary ? ', binary' : ''}] ${String(s.text).slice(0, 300)}${s.text.length > 300 ? `…(${s.text.length})` : ''}`;

test(`answers ${FUZZ_RUNS} generated tool-protocol frames without internal errors or a crash, and refused frames change no tool`, { timeout: 600_000 }, async () => {
  const base = { url: target.url } as TestDaemon;
  let frameCount = 0;
  let compared = 0;
  const closes = new Map<number, number>();
  const codes = new Map<string, number>();
  const problems: string[] = [];
  const rssBefore = rssBytes(target.pid);
  const started = performance.now();
  const batches = Math.ceil(FUZZ_RUNS / BATCH / LANES);

  await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      const run = await fc.check(
        fc.asyncProperty(fc.array(frames(lane), { minLength: BATCH, maxLength: BATCH }), notUtf8, async (batch, last) => {
          if (last) batch = [...batch, last];
          const app = await RawApp.connect(base, tokens[lane]!);
          // Answers every catalog query the daemon makes, now or after an announcement.
          const tools = [{ id: `lane${lane}.echo` }];
          app.ws.on('message', (data) => {
            const f = JSON.parse(data.toString()) as Frame;
            if (f.type !== 'tool.query') return;
            if (f.payload?.detail === 'definitions') app.answer(f, 'tool.catalog', definitionsAnswer(tools, f.payload.ids ?? []));
            else app.answer(f, 'tool.catalog', indexAnswer(tools));
          });
          await app.nextOfType('tool.query');
          const from = app.received.length;
          for (const s of batch) app.ws.send(s.text, { binary: Boolean(s.binary) });
          app.send({ type: 'tool.result', id: 'barrier', payload: {} }); // no replyTo: always refused, and answered last
          frameCount += batch.length;
          const outcome = await Promise.race([
            app.next((f) => f.type === 'tool.error' && f.replyTo === 'barrier').then(() => 'answered' as const),
            app.closed.then((c) => c),
            new Promise<'silent'>((r) => setTimeout(() => r('silent'), 30_000).unref()),
          ]);
          const refusals = app.received.slice(from).filter((f: Frame) => f.type === 'tool.error' && f.replyTo !== 'barrier');
          for (const f of refusals) codes.set(f.payload?.code ?? '?', (codes.get(f.payload?.code ?? '?') ?? 0) + 1);
          const internal = refusals.filter((f) => f.payload?.code === 'internal_error');
          const local: string[] = [];
          if (internal.length) local.push(`internal_error refusals: ${JSON.stringify(internal.slice(0, 3))}`);
          if (outcome === 'silent') local.push('the daemon never answered the barrier frame');
          if (typeof outcome === 'object') {
            closes.set(outcome.code, (closes.get(outcome.code) ?? 0) + 1);
            if (!PEER_FAULT_CLOSES.has(outcome.code)) local.push(`closed with ${outcome.code} ${outcome.reason}`);
          } else {
            // Every frame refused whole (one refusal each, barrier aside): the daemon sent nothing else.
            // One frame may draw two refusals while a well-formed announcement in the same batch is
            // accepted and rightly followed by the daemon's catalog query (seen on CI), so with such an
            // announcement in the batch a query is not counted as acting on a refused frame.
            if (refusals.length >= batch.length) {
              compared++;
              const announced = batch.some((f) => f.kind === 'valid');
              const acted = app.received
                .slice(from)
                .filter((f: Frame) => f.type !== 'tool.error' && !(announced && f.type === 'tool.query'));
              if (acted.length > 0) local.push(`refused frames made the daemon act: ${JSON.stringify(acted.slice(0, 3)).slice(0, 600)}`);
            }
            await app.close();
          }
          if (!target.alive()) local.push(`the daemon exited: ${target.daemon.stderr().slice(-2_000)}`);
          if (local.length === 0) return true;
          problems.push(`lane ${lane}: ${local.join('; ')}\n  frames:\n  ${batch.map(describeSend).join('\n  ')}`.slice(0, 8_000));
          return false;
        }),
        { seed: seed + lane, numRuns: batches, endOnFailure: true },
      );
      assert.ok(!run.failed, `seed ${seed + lane} (lane ${lane}): ${String(run.errorInstance ?? '')}\n${problems.join('\n')}`);
    }),
  );
  const rssAfter = rssBytes(target.pid);
  const healthFigures = await health.stop();
  console.log(
    `# fuzz tool protocol: ${frameCount} frames on ${batches * LANES} connections in ${((performance.now() - started) / 1000).toFixed(1)} s; refusals ${JSON.stringify(Object.fromEntries(codes))}; ` +
      `closes ${JSON.stringify(Object.fromEntries(closes))}; ${compared} all-refused batches compared; rss ${mib(rssBefore)} → ${mib(rssAfter)}; /health probes ${healthFigures.probes}, failures ${healthFigures.failures.length}, p50 ${healthFigures.p50Ms} ms, slowest ${healthFigures.maxMs} ms`,
  );
  assert.ok(target.alive());
  assert.deepEqual(healthFigures.failures, []);
  assert.ok(frameCount >= FUZZ_RUNS);
  assert.ok(rssAfter - rssBefore < RSS_GROWTH_BOUND, `resident memory grew ${mib(rssAfter - rssBefore)}, bound ${mib(RSS_GROWTH_BOUND)}`);
});
