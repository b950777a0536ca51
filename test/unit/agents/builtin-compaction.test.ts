import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createBuiltinDriver } from '../../../src/agents/builtin/index.js';
import { ContextGauge, SUMMARY_PROMPT } from '../../../src/agents/builtin/compaction.js';
import { ModelServices } from '../../../src/agents/models/index.js';
import { systemClock } from '../../../src/clock.js';
import { startScriptedModel, type ScriptedModel } from '../../../src/devtools/scripted-model/index.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { recordingTurnIO } from '../../support/turn-io.js';

/**
 * Context compaction of the built-in agent (issue 14), against the scripted model over HTTP:
 * the summary request and the continued conversation are checked message by message.
 */

let model: ScriptedModel;
before(async () => {
  model = await startScriptedModel({ models: ['scripted-model'] });
});
after(() => model.close());
beforeEach(() => model.reset());

const SUMMARY_HEADER = '[Summary of the earlier conversation, made by Berth when the context filled up]';

/** A driver whose model holds 4096 tokens and compacts past 80 % of them (about 13,000 characters). */
const newDriver = () =>
  createBuiltinDriver({
    services: new ModelServices(
      [{ id: 'scripted', baseUrl: model.url, defaultModel: 'scripted-model', models: [{ id: 'scripted-model', contextWindow: 4096 }] }],
      { clock: systemClock, home: tmpdir() },
    ),
    maxTurnIterations: 10,
    clock: systemClock,
  });

describe('context compaction', () => {
  test('a request past the threshold first summarises the older turns, then continues on summary + last turns', async () => {
    const driver = await newDriver();
    model.enqueue({ kind: 'reply', text: 'first answer' }, { kind: 'reply', text: 'second answer' });
    await driver.runTurn(recordingTurnIO({ prompt: 'first question' }));
    await driver.runTurn(recordingTurnIO({ prompt: 'second question' }));
    const big = `third question ${'x'.repeat(14_000)}`;
    model.enqueue({ kind: 'reply', text: 'the summary of turn one' }, { kind: 'reply', text: 'third answer' });
    const io = recordingTurnIO({ prompt: big });
    assert.equal((await driver.runTurn(io)).stopReason, 'end_turn');

    const [, , summaryRequest, continued] = model.completions();
    assert.deepEqual(summaryRequest!.messages, [
      { role: 'system', content: SUMMARY_PROMPT },
      { role: 'user', content: 'user: first question\nassistant: first answer' },
    ]);
    assert.equal(summaryRequest!.tools, undefined, 'the summariser is offered no tools');
    const system = continued!.messages[0];
    assert.equal(system.role, 'system');
    assert.deepEqual(continued!.messages.slice(1), [
      { role: 'user', content: `${SUMMARY_HEADER}\n\nthe summary of turn one` },
      { role: 'user', content: 'second question' },
      { role: 'assistant', content: 'second answer' },
      { role: 'user', content: big },
    ]);
    const done = io.updates.find((u) => u.sessionUpdate === 'context_compacted') as Record<string, any>;
    assert.equal(done.reason, 'threshold');
    assert.equal(done.summary, 'the summary of turn one');
    assert.ok(done.tokensBefore > 0.8 * 4096, 'it ran because the estimate passed 80 % of the window');
    assert.equal(typeof done.tokensAfter, 'number');
    assert.ok(!io.updates.some((u) => (u as any).content?.text === 'the summary of turn one'), 'the summary is not streamed as an answer');
  });

  test('the threshold follows the model\'s own token counts, not four characters a token', async () => {
    // 6,000 characters: about 1,500 tokens by characters, under 80 % of 4096. This model counts
    // three times that for its earlier requests (a dense tokenizer), so the same request is over.
    const driver = await newDriver();
    const dense = (req: { body: object }) => Math.ceil((JSON.stringify(req.body).length * 3) / 4);
    model.setRule((req) => ({ kind: 'reply', text: 'answer', usage: { promptTokens: dense(req) } }));
    await driver.runTurn(recordingTurnIO({ prompt: 'first question' }));
    await driver.runTurn(recordingTurnIO({ prompt: 'second question' }));
    assert.equal(model.completions().length, 2);
    await driver.runTurn(recordingTurnIO({ prompt: `third question ${'x'.repeat(6_000)}` }));
    const [, , summaryRequest] = model.completions();
    assert.equal(summaryRequest!.messages[0]!.content, SUMMARY_PROMPT, 'the third request was a summary');
  });

  test('without usage reports, four characters a token: the same 6,000 characters do not compact', async () => {
    const driver = await newDriver();
    model.setRule(() => ({ kind: 'reply', text: 'answer', usage: false }));
    await driver.runTurn(recordingTurnIO({ prompt: 'first question' }));
    await driver.runTurn(recordingTurnIO({ prompt: 'second question' }));
    await driver.runTurn(recordingTurnIO({ prompt: `third question ${'x'.repeat(6_000)}` }));
    assert.equal(model.completions().length, 3);
    assert.notEqual(model.completions()[2]!.messages[0]!.content, SUMMARY_PROMPT);
  });

  test('"context length exceeded" triggers exactly one compaction and a retry', async () => {
    const driver = await newDriver();
    model.enqueue({ kind: 'reply', text: 'a1' }, { kind: 'reply', text: 'a2' });
    await driver.runTurn(recordingTurnIO({ prompt: 'q1' }));
    await driver.runTurn(recordingTurnIO({ prompt: 'q2' }));
    const overflow = { kind: 'error', status: 400, message: "This model's maximum context length is 4096 tokens", code: 'context_length_exceeded' } as const;
    model.enqueue(overflow, { kind: 'reply', text: 'summary' }, { kind: 'reply', text: 'a3' });
    const io = recordingTurnIO({ prompt: 'q3' });
    assert.equal((await driver.runTurn(io)).stopReason, 'end_turn');
    assert.equal(model.completions().length, 5, 'q1, q2, the refused q3, the summary, q3 again');
    assert.equal(io.updates.filter((u) => u.sessionUpdate === 'context_compacted').length, 1);
    assert.equal(model.completions()[4]!.messages[1].content, `${SUMMARY_HEADER}\n\nsummary`);
  });

  test('a second overflow after the compaction fails the turn instead of compacting again', async () => {
    const driver = await newDriver();
    model.enqueue({ kind: 'reply', text: 'a1' }, { kind: 'reply', text: 'a2' });
    await driver.runTurn(recordingTurnIO({ prompt: 'q1' }));
    await driver.runTurn(recordingTurnIO({ prompt: 'q2' }));
    const overflow = { kind: 'error', status: 400, message: 'context_length_exceeded', code: 'context_length_exceeded' } as const;
    model.enqueue(overflow, { kind: 'reply', text: 'summary' }, overflow);
    const err = await driver.runTurn(recordingTurnIO({ prompt: 'q3' })).then(
      () => assert.fail('the turn should fail'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof BerthError && err.code === 'model_error');
    assert.equal(model.completions().length, 5);
  });

  test('restore() replays a compaction record into the same context', async () => {
    const driver = await newDriver();
    driver.restore([
      { kind: 'user', content: [{ type: 'text', text: 'q1' }] },
      { kind: 'assistant', text: 'a1', toolCalls: [] },
      { kind: 'user', content: [{ type: 'text', text: 'q2' }] },
      { kind: 'assistant', text: 'a2', toolCalls: [] },
      { kind: 'user', content: [{ type: 'text', text: 'q3' }] },
      { kind: 'compaction', summary: 'S', keptTurns: 2 },
      { kind: 'assistant', text: 'a3', toolCalls: [] },
    ]);
    model.enqueue({ kind: 'reply', text: 'a4' });
    await driver.runTurn(recordingTurnIO({ prompt: 'q4' }));
    assert.deepEqual(model.completions()[0]!.messages.slice(1), [
      { role: 'user', content: `${SUMMARY_HEADER}\n\nS` },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'a2' },
      { role: 'user', content: 'q3' },
      { role: 'assistant', content: 'a3' },
      { role: 'user', content: 'q4' },
    ]);
  });
});

describe('the context gauge', () => {
  test('counts exactly the JSON characters of the request, also as the history grows', () => {
    const gauge = new ContextGauge();
    const tools = [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } } }];
    const messages: Parameters<ContextGauge['tokens']>[0][number][] = [{ role: 'system', content: 'be brief' }];
    for (const text of ['hello', 'a "quoted" word', 'ünïcödé ✓']) {
      messages.push({ role: 'user', content: text });
      const chars = JSON.stringify(messages).length + JSON.stringify(tools).length;
      assert.equal(gauge.tokens(messages, tools), Math.ceil(chars / 4));
    }
    assert.equal(gauge.tokens([], []), 1);
  });
});

describe('what a compaction carries verbatim', () => {
  test('the last plan and every file touched survive two compactions in a row', async () => {
    const { compacted } = await import('../../../src/agents/builtin/compaction.js');
    const call = (name: string, args: object) => ({
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id: `c-${name}-${JSON.stringify(args).length}`, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } }],
    });
    const result = (id: string) => ({ role: 'tool' as const, tool_call_id: id, content: '{}' });
    const write = call('workspace_write', { path: 'src/a.ts' });
    const plan = call('update_plan', { entries: [{ content: 'fix a', status: 'in_progress' }] });
    const first = compacted(
      [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'u1' },
        write,
        result(write.tool_calls[0]!.id),
        plan,
        result(plan.tool_calls[0]!.id),
        { role: 'user', content: 'u2' },
        { role: 'user', content: 'u3' },
      ],
      'S1',
      2,
    )!;
    const read = call('workspace_read', { path: 'docs/b.md' });
    const second = compacted([...first, read, result(read.tool_calls[0]!.id), { role: 'user', content: 'u4' }], 'S2', 2)!;
    assert.deepEqual(second[1], {
      role: 'user',
      content: `${SUMMARY_HEADER}\n\nS2\n\nPlan (last update_plan): {"entries":[{"content":"fix a","status":"in_progress"}]}\nFiles touched: src/a.ts`,
    });
    assert.deepEqual(second.slice(2), [{ role: 'user', content: 'u3' }, read, result(read.tool_calls[0]!.id), { role: 'user', content: 'u4' }]);
  });
});
