// Benchmark "agent" (issue 14): what the built-in agent's work costs in model round trips, tokens
// and time, against the scripted model in the benchmark's process and Berth in-process (dist/):
//
// 1. A scripted 20-command task (each command an `echo`, so it finishes at once), run twice: with
//    the exec wait (the daemon's default `waitMs`) and without it (`waitMs: 0`, the seed's
//    behaviour: every command then needs `workspace_poll` round trips). Reported: model round
//    trips, tokens (the session's usage totals: the scripted model's deterministic counts) and time.
// 2. Compaction of an N-turn session (`POST /session/{id}/compact` to its turn_complete).
// 3. Rewind of 100 files: one turn writes 100 files, the next patches every one of them; then
//    `POST /session/{id}/rewind` to before the second turn puts all 100 back (timed from the POST
//    to its answer: checking each file's revision, then one workspace_write each).
import { join } from 'node:path';
import { fromDist, startInProcessBerth } from './lib/in-process-berth.mjs';
import { keepAliveClient } from './lib/http-client.mjs';
import { formatTable } from './lib/report.mjs';
import { subscribe } from './lib/session-steps.mjs';
import { round, summarize } from './lib/stats.mjs';

export const name = 'agent';
export const description =
  'model round trips and tokens for a 20-command task with and without the exec wait; compaction of a 200-turn session; rewind of 100 files (issue 14)';

const PLANS = {
  full: { commands: 20, turns: 200, reps: 5, files: 100 },
  quick: { commands: 20, turns: 50, reps: 2, files: 100 },
};

const MODEL = 'scripted-model';

function startStack(model) {
  return startInProcessBerth('agent', (scratch) => ({
    home: join(scratch, 'home'),
    workspaces: [join(scratch, 'ws')],
    modelServices: [{ id: 'scripted', baseUrl: model.url, models: [{ id: MODEL }], defaultModel: MODEL }],
  }));
}

const body = (res) => JSON.parse(res.body.toString('utf8'));
const promptIdOf = (f) => f.data?.promptId ?? f.data?.data?.promptId;

/** One prompt (or a compaction) on an open stream; resolves when its terminal event arrives. */
async function submit(client, stream, sessionId, text, route = 'prompt') {
  const payload = route === 'prompt' ? { prompt: [{ type: 'text', text }] } : {};
  const res = await client.post(`/session/${sessionId}/${route}`, payload);
  if (res.status !== 202) throw new Error(`POST ${route} -> ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
  const { promptId } = body(res);
  const end = await stream.waitFor((f) => (f.event === 'turn_complete' || f.event === 'turn_error') && promptIdOf(f) === promptId);
  if (end.event === 'turn_error') throw new Error(`turn_error: ${JSON.stringify(end.data).slice(0, 300)}`);
}

async function newSession(client, baseUrl) {
  const res = await client.post('/session', { sessionScope: 'thread', approvalMode: 'yolo' });
  const { sessionId } = body(res);
  const stream = await subscribe(baseUrl, sessionId);
  return { sessionId, stream };
}

const poll = (extra = {}) => ({
  kind: 'reply',
  toolCalls: [{ name: 'workspace_poll', arguments: { commandId: { $fromLastToolResult: 'commandId' } } }],
  ...extra,
});

/** The command task: one exec per model answer; without the wait each is polled until it finished. */
async function commandTask(stack, model, commands, wait) {
  const client = keepAliveClient(stack.daemon.url);
  try {
    const { sessionId, stream } = await newSession(client, stack.daemon.url);
    model.reset();
    for (let i = 0; i < commands; i++) {
      const args = { command: `echo step ${i}`, ...(wait ? {} : { waitMs: 0 }) };
      model.enqueue({ kind: 'reply', toolCalls: [{ name: 'workspace_exec', arguments: args }] });
      if (!wait) model.enqueue(poll({ repeatWhileLastToolResult: { running: true } }));
    }
    model.enqueue({ kind: 'reply', text: 'all commands ran' });
    const started = process.hrtime.bigint();
    await submit(client, stream, sessionId, 'run the commands');
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const usage = body(await client.get(`/session/${sessionId}/status`)).usage.session;
    stream.close();
    return { ms, roundTrips: model.completions().length, tokens: usage.inputTokens + usage.outputTokens, inputTokens: usage.inputTokens };
  } finally {
    client.close();
  }
}

/** A `turns`-turn session, then one compaction on request, timed from the POST to its turn_complete. */
async function compaction(stack, model, turns) {
  const client = keepAliveClient(stack.daemon.url);
  try {
    const { sessionId, stream } = await newSession(client, stack.daemon.url);
    model.reset();
    for (let i = 0; i < turns; i++) await submit(client, stream, sessionId, `turn ${i}: ${'context '.repeat(20)}`);
    model.enqueue({ kind: 'reply', text: 'a summary of the session so far' });
    const started = process.hrtime.bigint();
    await submit(client, stream, sessionId, '', 'compact');
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const done = stream.frames.find((f) => f.data?.data?.update?.sessionUpdate === 'context_compacted')?.data.data.update;
    stream.close();
    return { ms, tokensBefore: done?.tokensBefore ?? null, tokensAfter: done?.tokensAfter ?? null };
  } finally {
    client.close();
  }
}

/** `files` files written in one turn and patched in the next, then a rewind to before the patches, timed. */
async function rewind(stack, model, files, rep) {
  const client = keepAliveClient(stack.daemon.url);
  try {
    const { sessionId, stream } = await newSession(client, stack.daemon.url);
    model.reset();
    const names = Array.from({ length: files }, (_, i) => `rewind-${rep}/file-${i}.txt`);
    const calls = (make) => ({ kind: 'reply', toolCalls: names.map((path) => ({ name: make.name, arguments: make.args(path) })) });
    model.enqueue(calls({ name: 'workspace_write', args: (path) => ({ path, content: `original ${path}\n`, expectedSha256: null }) }), { kind: 'reply', text: 'written' });
    await submit(client, stream, sessionId, 'write the files');
    model.enqueue(calls({ name: 'workspace_patch', args: (path) => ({ path, oldText: 'original', newText: 'patched', expectedSha256: null }) }), { kind: 'reply', text: 'patched' });
    const patches = await client.post(`/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'patch them' }] });
    const { promptId } = body(patches);
    await stream.waitFor((f) => f.event === 'turn_complete' && promptIdOf(f) === promptId);
    const started = process.hrtime.bigint();
    const res = await client.post(`/session/${sessionId}/rewind`, { promptId });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const answer = body(res);
    if (res.status !== 200 || answer.filesChanged.length !== files) throw new Error(`rewind -> ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
    stream.close();
    return { ms };
  } finally {
    client.close();
  }
}

export async function run({ quick }) {
  const plan = quick ? PLANS.quick : PLANS.full;
  const { startScriptedModel } = await fromDist('devtools/scripted-model/index.js');
  const model = await startScriptedModel({ port: 0, models: [MODEL] });
  const stack = await startStack(model);
  try {
    const rows = [];
    const json = { plan, task: {}, compaction: null, rewind: null };
    for (const [label, wait] of [['with the exec wait', true], ['without it (waitMs 0)', false]]) {
      const samples = [];
      for (let r = 0; r < plan.reps; r++) samples.push(await commandTask(stack, model, plan.commands, wait));
      const ms = summarize(samples.map((s) => s.ms));
      const last = samples.at(-1);
      json.task[label] = { roundTrips: samples.map((s) => s.roundTrips), tokens: samples.map((s) => s.tokens), ms };
      rows.push([`${plan.commands} commands, ${label}`, `${last.roundTrips} round trips`, `${last.tokens} (${last.inputTokens} in)`, `${round(ms.median)} ms median`]);
    }
    const compactions = [];
    for (let r = 0; r < Math.max(1, Math.floor(plan.reps / 2)); r++) compactions.push(await compaction(stack, model, plan.turns));
    const cms = summarize(compactions.map((c) => c.ms));
    const first = compactions[0];
    json.compaction = { turns: plan.turns, ms: cms, tokensBefore: first.tokensBefore, tokensAfter: first.tokensAfter };
    rows.push([`compaction, ${plan.turns}-turn session`, '1 summary request', `~${first.tokensBefore} → ~${first.tokensAfter}`, `${round(cms.median)} ms median`]);
    const rewinds = [];
    for (let r = 0; r < plan.reps; r++) rewinds.push(await rewind(stack, model, plan.files, r));
    const rms = summarize(rewinds.map((x) => x.ms));
    json.rewind = { files: plan.files, ms: rms };
    rows.push([`rewind of ${plan.files} files`, 'none', '—', `${round(rms.median)} ms median`]);
    return { text: formatTable(['measure', 'model', 'tokens', 'time'], rows), json };
  } finally {
    await stack.close();
    await model.close();
  }
}
