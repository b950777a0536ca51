import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { MODULE_MOST_LINE } from '../../src/protocol/limits.js';
import { exchangeLine } from '../../src/modules/client.js';
import { FUZZ_RUNS, fuzzSeed, inParallel, KeepAliveClient, mib, MiB, rssBytes, startFuzzTarget, type FuzzTarget } from '../support/fuzz.js';
import { watchHealth, type HealthWatch } from '../support/health-watch.js';
import { hostileString, hostileValue, nestedJson, PROTO_KEYS } from '../support/fuzz-values.js';

/**
 * Issue 16, "suites that keep it so", the module protocol face (seed 004):
 * generated lines — valid questions, near-valid ones (a wrong token, an
 * unknown op or field, a wrong type) and hostile bytes (not UTF-8, not JSON,
 * prototype keys, deep nesting, several lines, none, over the line limit) —
 * each on its own connection to a workspace socket of a real `berth serve`.
 * Invariants: the process stays up and `/health` answers; every connection
 * gets exactly one answer line, a JSON object with a boolean `ok`; memory
 * stays within a bound; and a refused line changes nothing (each tab's
 * inbox, as `peek` shows it, and the tab list).
 */

const BATCH = 50;
/** Connections at once: well under the socket's 64 (MODULE_MAX_CONNECTIONS), which would close extras unanswered. */
const PARALLEL = 16;
const RSS_GROWTH_BOUND = 128 * MiB;

interface Tab {
  sessionId: string;
  tab: string;
  token: string;
  socket: string;
}

let target: FuzzTarget;
let http: KeepAliveClient;
let health: HealthWatch;
let tabs: Tab[];
const seed = fuzzSeed('fuzz module lines');

async function openTab(): Promise<Tab> {
  const created = await http.send({ method: 'POST', path: '/session', headers: { 'content-type': 'application/json' }, body: '{"sessionScope":"thread"}' });
  const sessionId = JSON.parse(created.body).sessionId as string;
  const access = JSON.parse((await http.send({ method: 'GET', path: `/session/${sessionId}/module` })).body);
  return { sessionId, tab: String(access.tab), token: access.token, socket: access.socket };
}

before(async () => {
  target = await startFuzzTarget({ args: ['--session-idle-timeout-ms', '0'] });
  http = new KeepAliveClient(target.url, 4);
  health = await watchHealth(target.url, { everyMs: 250 });
  tabs = [await openTab(), await openTab(), await openTab()];
});
after(async () => {
  await health?.stop();
  http?.close();
  await target?.close();
});

/** A line: the bytes one connection sends. */
type Line = { kind: 'valid' | 'near-valid' | 'hostile'; bytes: Buffer };

const OPS = ['list', 'send', 'inbox', 'peek'] as const;
const text = (v: unknown) => Buffer.from(JSON.stringify(v) + '\n');

/** Questions built from tab indexes, resolved against the live tabs when sent. */
function lines(tabCount: number): fc.Arbitrary<(t: Tab[]) => Line> {
  const who = fc.nat({ max: tabCount - 1 });
  const valid = fc
    .record({ from: who, to: who, op: fc.constantFrom(...OPS), text: fc.string({ maxLength: 200 }), kind: fc.option(fc.constantFrom('info', 'question', 'answer', 'done', 'blocked'), { nil: undefined }), named: fc.boolean() })
    .map(({ from, to, op, text: body, kind, named }) => (t: Tab[]): Line => {
      const q: Record<string, unknown> = { token: t[from]!.token, op, ...(named ? { session: t[from]!.sessionId } : {}) };
      if (op === 'send') Object.assign(q, { tab: t[to]!.tab, text: body, ...(kind ? { kind } : {}) });
      return { kind: 'valid', bytes: text(q) };
    });
  const nearValid = fc
    .record({ from: who, op: fc.constantFrom(...OPS, 'delete', 'LIST', ''), how: fc.constantFrom('token', 'extra', 'type', 'proto', 'session', 'tab'), bad: hostileValue(), s: hostileString() })
    .map(({ from, op, how, bad, s }) => (t: Tab[]): Line => {
      const q: Record<string, unknown> = { token: t[from]!.token, op, tab: t[0]!.tab, text: 'hi' };
      if (op !== 'send') delete q.tab, delete q.text;
      if (how === 'token') q.token = s.slice(0, 1_000);
      if (how === 'extra') q.unexpected = bad;
      if (how === 'type') q[op === 'send' ? 'text' : 'token'] = bad;
      if (how === 'session') q.session = s.slice(0, 1_000);
      if (how === 'tab') q.tab = bad;
      let json = JSON.stringify(q);
      if (how === 'proto') json = json.replace(/^\{/, `{"${PROTO_KEYS[s.length % PROTO_KEYS.length]}":${JSON.stringify(bad) ?? 'null'},`);
      return { kind: 'near-valid', bytes: Buffer.from(json + '\n') };
    });
  const hostile = fc
    .oneof(
      hostileValue().map((v) => text(v)),
      hostileString().map((s) => Buffer.from(s + '\n')),
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
      fc.constantFrom('', '\n', '\n\n', '{}', '{"token":"x","op":"list"}\n{"token":"y","op":"list"}\n', '{"token":"x","op":"list"', '\u0000\n', '\r\n').map((s) => Buffer.from(s)),
      fc.integer({ min: 10, max: 10_000 }).map((d) => Buffer.from(nestedJson(d, d % 2 === 0) + '\n')),
      fc.constant(Buffer.concat([Buffer.from('{"token":"'), Buffer.from([0xff, 0xfe, 0xed, 0xa0, 0x80]), Buffer.from('","op":"list"}\n')])),
      // Over the line limit, now and then.
      fc.nat({ max: 200 }).map((n) => (n === 0 ? Buffer.alloc(MODULE_MOST_LINE + 10, 0x61) : Buffer.from(`{"op":"list","token":"${'t'.repeat(n)}"}\n`))),
    )
    .map((bytes) => (): Line => ({ kind: 'hostile', bytes }));
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 3, arbitrary: nearValid }, { weight: 4, arbitrary: hostile });
}

const describeLine = (l: Line) => `[${l.kind}] ${JSON.stringify(l.bytes.subarray(0, 300).toString('latin1'))}${l.bytes.length > 300 ? `…(${l.bytes.length} bytes)` : ''}`;

/** The one answer line of a connection, or what is wrong with it. */
function readAnswer(raw: string): { ok: boolean; code?: string } | string {
  const lines = raw.split('\n').filter((l) => l !== '');
  if (lines.length !== 1) return `expected one answer line, got ${lines.length}: ${JSON.stringify(raw.slice(0, 300))}`;
  try {
    const a = JSON.parse(lines[0]!);
    if (typeof a !== 'object' || a === null || typeof a.ok !== 'boolean') return `the answer has no boolean ok: ${lines[0]!.slice(0, 300)}`;
    return a;
  } catch {
    return `the answer is not JSON: ${lines[0]!.slice(0, 300)}`;
  }
}

test(`answers ${FUZZ_RUNS} generated module lines with one JSON answer each, no crash, bounded memory`, { timeout: 600_000 }, async () => {
  const socket = tabs[0]!.socket;
  const codes = new Map<string, number>();
  let sent = 0;
  let problems: string[] = [];
  await inParallel(fc.sample(lines(tabs.length), { seed: seed + 1, numRuns: 100 }), PARALLEL, (l) => exchangeLine(socket, l(tabs).bytes));
  const rssBefore = rssBytes(target.pid);
  const started = performance.now();
  const run = await fc.check(
    fc.asyncProperty(fc.array(lines(tabs.length), { minLength: BATCH, maxLength: BATCH }), async (makers) => {
      const batch = makers.map((m) => m(tabs));
      const answers = await inParallel(batch, PARALLEL, (l) => exchangeLine(socket, l.bytes).catch((err: Error) => `ERROR ${err.message}`));
      problems = [];
      answers.forEach((raw, i) => {
        sent++;
        const a = readAnswer(raw);
        if (typeof a === 'string') problems.push(`${a}\n    line: ${describeLine(batch[i]!)}`);
        else codes.set(a.ok ? 'ok' : (a.code ?? '?'), (codes.get(a.ok ? 'ok' : (a.code ?? '?')) ?? 0) + 1);
      });
      if (!target.alive()) problems.push(`the daemon exited: ${target.daemon.stderr().slice(-2_000)}`);
      return problems.length === 0;
    }),
    { seed, numRuns: Math.ceil(FUZZ_RUNS / BATCH), endOnFailure: true },
  );
  assert.ok(!run.failed, `seed ${seed}, path ${run.counterexamplePath}: ${String(run.errorInstance ?? '')}\n${problems.join('\n')}`);
  const rssAfter = rssBytes(target.pid);
  const healthFigures = await health.stop();
  console.log(
    `# fuzz module lines: ${sent} lines in ${((performance.now() - started) / 1000).toFixed(1)} s; answers ${JSON.stringify(Object.fromEntries(codes))}; ` +
      `rss ${mib(rssBefore)} → ${mib(rssAfter)}; /health probes ${healthFigures.probes}, failures ${healthFigures.failures.length}, p50 ${healthFigures.p50Ms} ms, slowest ${healthFigures.maxMs} ms`,
  );
  assert.ok(target.alive());
  assert.deepEqual(healthFigures.failures, []);
  assert.ok(rssAfter - rssBefore < RSS_GROWTH_BOUND, `resident memory grew ${mib(rssAfter - rssBefore)}, bound ${mib(RSS_GROWTH_BOUND)}`);
});

test('refused module lines change no inbox and no tab', { timeout: 300_000 }, async () => {
  const socket = tabs[0]!.socket;
  const snapshot = async () =>
    Promise.all(tabs.map(async (t) => [await exchangeLine(socket, text({ token: t.token, op: 'peek' })), await exchangeLine(socket, text({ token: t.token, op: 'list' }))]));
  const refused = lines(tabs.length);
  let compared = 0;
  let skipped = 0;
  let changed = '';
  const runs = Math.max(20, Math.ceil(FUZZ_RUNS / 100));
  const run = await fc.check(
    fc.asyncProperty(fc.array(refused, { minLength: 10, maxLength: 10 }), async (makers) => {
      const batch = makers.map((m) => m(tabs)).filter((l) => l.kind !== 'valid');
      const before = JSON.stringify(await snapshot());
      const answers = await inParallel(batch, PARALLEL, (l) => exchangeLine(socket, l.bytes));
      if (answers.some((raw) => { const a = readAnswer(raw); return typeof a === 'string' || a.ok; })) {
        skipped++;
        return true;
      }
      compared++;
      const afterwards = JSON.stringify(await snapshot());
      if (afterwards === before) return true;
      changed = `before ${before.slice(0, 1_500)}\nafter ${afterwards.slice(0, 1_500)}\n${batch.map(describeLine).join('\n')}`;
      return false;
    }),
    { seed: seed + 2, numRuns: runs, endOnFailure: true },
  );
  assert.ok(!run.failed, `seed ${seed + 2}: refused lines changed state: ${String(run.errorInstance ?? '')}\n${changed}`);
  console.log(`# fuzz module refusals: ${compared} batches of refused lines compared before/after, ${skipped} skipped (one was accepted)`);
  assert.ok(compared >= runs / 2);
});
