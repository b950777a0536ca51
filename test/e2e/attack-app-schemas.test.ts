import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_SCHEMA_PROPERTIES } from '../../src/protocol/limits.js';
import { startTestDaemon, type TestDaemon } from '../support/daemon.js';
import { assertHealthy, HEALTH_BOUND_MS, watchHealth } from '../support/health-watch.js';
import { retainedHeapMb, rssMb } from '../support/heap.js';
import { RawApp, agentCall, definitionOf, indexAnswer, wrap, type RawTool } from '../support/raw-app.js';

/**
 * Issue 16 #2 and #3, app schemas: one `read`-policy application token could
 * stall the daemon for a minute per announcement of a large gzip catalog, grow
 * memory with every announcement (a shared Ajv kept every compiled schema), and
 * freeze it with a `pattern` that backtracks.
 */
let d: TestDaemon;
let token: string;
let workspaceId: string;
before(async () => {
  d = await startTestDaemon();
  token = (await d.daemon.core.tokens.createAppToken('schema-attacker', 'read')).token;
  workspaceId = d.daemon.core.workspaces.primary().id;
});
after(() => d.close());

const registry = () => d.daemon.core.tools.applications;

/** 1,000 tools × 40 string properties, as the 90 KiB gzip catalog. */
function bigCatalog(round: number): RawTool[] {
  const properties = Object.fromEntries(
    Array.from({ length: 40 }, (_, j) => [`field${j}`, { type: 'string', description: `field ${j} of the form` }]),
  );
  return Array.from({ length: 1000 }, (_, i) => ({
    id: `form.tool${i}`,
    inputSchema: { type: 'object', properties, required: ['field0'] },
    revision: `sha256:round${round}-tool${i}`,
  }));
}

/** The index answer with every definition inline (no definitions query), gzip-wrapped: built before any watch starts. */
function catalogAnswer(tools: RawTool[], round: number): Record<string, unknown> {
  const full = indexAnswer(tools, `sha256:catalog-${round}`);
  full.tools = tools.map((t) => definitionOf(t)) as typeof full.tools;
  return wrap(full);
}

/** Polls gently (the test shares the daemon's event loop, so a busy poll would be measured as a stall). */
async function settle(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 50));
}

/** Connects and answers the index query; resolves once the last tool of this round is published and connected. */
async function announce(tools: RawTool[], answer: Record<string, unknown>): Promise<RawApp> {
  const app = await RawApp.connect(d, token);
  const index = await app.nextOfType('tool.query', (f) => f.payload?.detail === 'index');
  app.answer(index, 'tool.catalog', answer);
  const last = tools[tools.length - 1]!;
  await settle(() => registry().get(workspaceId, last.id)?.availability?.().available === true);
  return app;
}

test('four announcements of a 1,000-tool × 40-property gzip catalog neither stall /health nor keep memory', async () => {
  const answers = [1, 2, 3, 4].map((round) => ({ tools: bigCatalog(round), answer: catalogAnswer(bigCatalog(round), round) }));
  process.stdout.write(`# one wrapped catalog is ${Math.round(JSON.stringify(answers[0]!.answer).length / 1024)} KiB\n`);
  const heapBefore = await retainedHeapMb();
  const rssBefore = rssMb();
  const health = await watchHealth(d.url);
  const started = Date.now();
  for (const { tools, answer } of answers.splice(0)) {
    const app = await announce(tools, answer);
    // A call compiles only the tool it uses.
    const outcome = await agentCall(d, 'form.tool7', { field0: 42 });
    assert.equal(!outcome.ok && outcome.error.code, 'invalid_arguments');
    await app.close();
  }
  const took = Date.now() - started;
  const figures = await health.stop();
  await settle(() => registry().list(workspaceId).every((t) => t.availability?.().available === false));
  const heapAfter = await retainedHeapMb();
  process.stdout.write(
    `# 4 announcements in ${took} ms; retained heap ${heapBefore} → ${heapAfter} MB; rss ${rssBefore} → ${rssMb()} MB\n`,
  );
  // What is not sliced yet: inflating, parsing and shape-checking one ~3 MB answer as a whole
  // (100-300 ms on a quiet two-core box). Twice the usual bound keeps a loaded CI machine from flaking.
  assertHealthy('four large catalog announcements', figures, 2 * HEALTH_BOUND_MS);
  // The last catalog stays listed (disconnected) until withdrawn; earlier ones must be gone.
  assert.ok(heapAfter - heapBefore < 60, `retained heap grew ${Math.round(heapAfter - heapBefore)} MB`);
});

test('a schema pattern that backtracks is run in linear time: 29 a’s and a ! are refused at once', async () => {
  const tools: RawTool[] = [{ id: 'redos.tool', inputSchema: { type: 'object', properties: { text: { type: 'string', pattern: '^(a+)+$' } } } }];
  const app = await announce(tools, catalogAnswer(tools, 10));
  const health = await watchHealth(d.url);
  const attackStarted = Date.now();
  // Repeated for half a second so /health is probed throughout.
  for (let i = 0; Date.now() - attackStarted < 500; i++) {
    const n = [29, 40, 10_000][i % 3]!;
    // A refusal settles without I/O; let the loop breathe as separate requests would.
    await new Promise((r) => setImmediate(r));
    const t = performance.now();
    const outcome = await agentCall(d, 'redos.tool', { text: 'a'.repeat(n) + '!' });
    assert.equal(!outcome.ok && outcome.error.code, 'invalid_arguments');
    assert.ok(performance.now() - t < 1000, `${n} characters took ${Math.round(performance.now() - t)} ms`);
  }
  const matching = agentCall(d, 'redos.tool', { text: 'aaaa' });
  const call = await app.nextOfType('tool.call');
  assert.deepEqual(call.payload.arguments, { text: 'aaaa' }, 'a matching value still passes');
  app.answer(call, 'tool.result', { toolId: 'redos.tool', success: true, result: null });
  assert.ok((await matching).ok);
  assertHealthy('a backtracking schema pattern', await health.stop());
  await app.close();
});

test('a catalog with a pattern the linear engine cannot run, or a schema past the bounds, is refused whole', async () => {
  const refusedWith = async (tools: RawTool[], round: number) => {
    const app = await RawApp.connect(d, token);
    const index = await app.nextOfType('tool.query', (f) => f.payload?.detail === 'index');
    const full = indexAnswer(tools, `sha256:catalog-${round}`);
    full.tools = tools.map((t) => definitionOf(t)) as typeof full.tools;
    app.answer(index, 'tool.catalog', full);
    const notice = await app.nextOfType('tool.error');
    await app.close();
    return notice.payload.code as string;
  };
  const backref = { type: 'object', properties: { t: { type: 'string', pattern: '^(a)\\1$' } } };
  assert.equal(await refusedWith([{ id: 'bad.backref', inputSchema: backref }], 20), 'invalid_request');
  const wide = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: MAX_SCHEMA_PROPERTIES + 1 }, (_, i) => [`p${i}`, { type: 'string' }])),
  };
  assert.equal(await refusedWith([{ id: 'bad.wide', inputSchema: wide }], 21), 'schema_too_complex');
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { x: deep } };
  assert.equal(await refusedWith([{ id: 'bad.deep', inputSchema: deep }], 22), 'schema_too_complex');
});
