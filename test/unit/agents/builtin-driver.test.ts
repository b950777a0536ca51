import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createBuiltinDriver } from '../../../src/agents/builtin/index.js';
import { ModelServices } from '../../../src/agents/models/index.js';
import { systemClock } from '../../../src/clock.js';
import type { ModelServiceSpec } from '../../../src/config/model-services.js';
import { startScriptedModel, type ScriptedModel } from '../../../src/devtools/scripted-model/index.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { recordingTurnIO, toolDef } from '../../support/turn-io.js';

let model: ScriptedModel;

before(async () => {
  model = await startScriptedModel({ models: ['scripted-model', 'other-model'] });
});
after(() => model.close());
beforeEach(() => model.reset());

function services(extra: Partial<ModelServiceSpec> = {}): ModelServices {
  return new ModelServices([{ id: 'scripted', baseUrl: model.url, apiKey: 'sk-test', defaultModel: 'scripted-model', ...extra }], {
    clock: systemClock,
    home: tmpdir(),
  });
}

const newDriver = (maxTurnIterations = 10, svc = services()) =>
  createBuiltinDriver({ services: svc, maxTurnIterations, clock: systemClock });

const kinds = (updates: readonly { sessionUpdate: string }[]) => updates.map((u) => u.sessionUpdate);
const texts = (updates: readonly Record<string, any>[], kind: string) =>
  updates.filter((u) => u.sessionUpdate === kind && u.content?.text !== '').map((u) => u.content.text as string);

async function modelError(promise: Promise<unknown>): Promise<BerthError> {
  const err = await promise.then(
    () => assert.fail('expected the turn to fail'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof BerthError, `expected a BerthError, got ${String(err)}`);
  return err;
}

describe('built-in agent driver', () => {
  test('a plain text turn streams the chunks in order, then one usage chunk, and ends the turn', async () => {
    model.enqueue({ kind: 'reply', text: ['Hello ', 'from ', 'the model.'], usage: { promptTokens: 40, completionTokens: 6, reasoningTokens: 0, cachedTokens: 8 } });
    const driver = await newDriver();
    const io = recordingTurnIO({ prompt: 'Say hello' });
    const result = await driver.runTurn(io);
    assert.equal(result.stopReason, 'end_turn');
    assert.deepEqual(texts(io.updates, 'agent_message_chunk'), ['Hello ', 'from ', 'the model.']);
    const last = io.updates.at(-2) as Record<string, any>;
    assert.equal(last.sessionUpdate, 'agent_message_chunk');
    assert.equal(io.updates.at(-1)!.sessionUpdate, 'usage_update', 'the context fill follows, as qwen sends it');
    assert.deepEqual(last.content, { type: 'text', text: '' });
    assert.deepEqual(last._meta.usage, { inputTokens: 40, outputTokens: 6, totalTokens: 46, thoughtTokens: 0, cachedReadTokens: 8 });
    assert.equal(typeof last._meta.durationMs, 'number');

    const [sent] = model.completions();
    assert.equal(sent!.model, 'scripted-model');
    assert.equal(sent!.stream, true);
    assert.equal(sent!.stream_options.include_usage, true);
    assert.equal(sent!.messages[0].role, 'system');
    assert.match(sent!.messages[0].content, /workspace_info/);
    assert.deepEqual(sent!.messages[1], { role: 'user', content: 'Say hello' });
    assert.ok(sent!.tools.some((t: any) => t.function.name === 'update_plan'));
  });

  test('reasoning deltas become thought chunks ahead of the answer', async () => {
    model.enqueue({ kind: 'reply', reasoning: ['Thinking abo', 'ut it.'], text: 'Answer.' });
    const io = recordingTurnIO();
    await (await newDriver()).runTurn(io);
    assert.deepEqual(texts(io.updates, 'agent_thought_chunk'), ['Thinking abo', 'ut it.']);
    assert.deepEqual(kinds(io.updates).slice(0, 3), ['agent_thought_chunk', 'agent_thought_chunk', 'agent_message_chunk']);
  });

  test('a tool call runs through the session and its result is in the next model request', async () => {
    model.enqueue(
      { kind: 'reply', text: 'Let me read it.', toolCalls: [{ id: 'call_read', name: 'workspace_read', arguments: { path: 'README.md' }, fragments: 4 }] },
      { kind: 'reply', text: 'It says hi.' },
    );
    const io = recordingTurnIO({
      tools: [toolDef('workspace_read')],
      answer: () => ({ ok: true, result: { value: { content: 'hi there', sha256: 'abc' } } }),
    });
    const result = await (await newDriver()).runTurn(io);
    assert.equal(result.stopReason, 'end_turn');
    assert.deepEqual(io.calls, [{ toolCallId: 'call_read', name: 'workspace_read', args: { path: 'README.md' } }]);
    const [, second] = model.completions();
    const messages = second!.messages as any[];
    const assistant = messages.at(-2);
    assert.equal(assistant.role, 'assistant');
    assert.equal(assistant.content, 'Let me read it.');
    assert.deepEqual(assistant.tool_calls, [{ id: 'call_read', type: 'function', function: { name: 'workspace_read', arguments: '{"path":"README.md"}' } }]);
    assert.deepEqual(messages.at(-1), { role: 'tool', tool_call_id: 'call_read', content: '{"content":"hi there","sha256":"abc"}' });
    assert.deepEqual(texts(io.updates, 'agent_message_chunk'), ['Let me read it.', 'It says hi.']);
  });

  test('two tool calls in one answer run in order and both results go back in that order', async () => {
    model.enqueue(
      {
        kind: 'reply',
        toolCalls: [
          { id: 'c1', name: 'workspace_list', arguments: { path: '.' } },
          { id: 'c2', name: 'workspace_read', arguments: { path: 'a.txt' } },
        ],
      },
      { kind: 'reply', text: 'done' },
    );
    const io = recordingTurnIO({ tools: [toolDef('workspace_list'), toolDef('workspace_read')] });
    await (await newDriver()).runTurn(io);
    assert.deepEqual(io.calls.map((c) => c.toolCallId), ['c1', 'c2']);
    const tail = (model.completions()[1]!.messages as any[]).slice(-2);
    assert.deepEqual(tail, [
      { role: 'tool', tool_call_id: 'c1', content: 'done workspace_list' },
      { role: 'tool', tool_call_id: 'c2', content: 'done workspace_read' },
    ]);
  });

  test('unparseable tool arguments are answered with a tool error to the model, not a crash', async () => {
    model.enqueue(
      { kind: 'reply', toolCalls: [{ id: 'bad', name: 'workspace_read', arguments: '{"path": "READ' }] },
      { kind: 'reply', text: 'sorry' },
    );
    const io = recordingTurnIO({ tools: [toolDef('workspace_read')] });
    const result = await (await newDriver()).runTurn(io);
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(io.calls.length, 0);
    const toolMessage = (model.completions()[1]!.messages as any[]).at(-1);
    assert.equal(toolMessage.tool_call_id, 'bad');
    const body = JSON.parse(toolMessage.content);
    assert.equal(body.error.code, 'invalid_arguments');
    assert.match(body.error.message, /not valid JSON/);
  });

  test('a tool error outcome reaches the model as a JSON error text', async () => {
    model.enqueue({ kind: 'reply', toolCalls: [{ id: 'e1', name: 'workspace_read', arguments: { path: 'x' } }] }, { kind: 'reply', text: 'ok' });
    const io = recordingTurnIO({
      tools: [toolDef('workspace_read')],
      answer: () => ({ ok: false, error: { code: 'path_not_found', message: 'Path does not exist', retryable: false } }),
    });
    await (await newDriver()).runTurn(io);
    const toolMessage = (model.completions()[1]!.messages as any[]).at(-1);
    assert.deepEqual(JSON.parse(toolMessage.content), { error: { code: 'path_not_found', message: 'Path does not exist', retryable: false } });
  });

  test('the iteration cap stops a model that keeps calling tools with max_turn_requests', async () => {
    model.setRule(() => ({ kind: 'reply', toolCalls: [{ name: 'workspace_list', arguments: { path: '.' } }] }));
    const io = recordingTurnIO({ tools: [toolDef('workspace_list')] });
    const result = await (await newDriver(3)).runTurn(io);
    assert.equal(result.stopReason, 'max_turn_requests');
    assert.equal(model.completions().length, 3);
    assert.equal(io.calls.length, 3);
    assert.equal(new Set(io.calls.map((c) => c.toolCallId)).size, 3);
  });

  test('a finish_reason of length ends the turn with max_tokens', async () => {
    model.enqueue({ kind: 'reply', text: 'cut off mid', finishReason: 'length' });
    const result = await (await newDriver()).runTurn(recordingTurnIO());
    assert.equal(result.stopReason, 'max_tokens');
  });

  test('aborting mid-stream ends the turn cancelled and closes the model connection', async () => {
    model.enqueue({ kind: 'hang', text: 'partial answer' });
    const io = recordingTurnIO({
      onUpdate: (u, self) => {
        if (u.sessionUpdate === 'agent_message_chunk') self.controller.abort();
      },
    });
    const result = await (await newDriver()).runTurn(io);
    assert.equal(result.stopReason, 'cancelled');
    const chat = model.requests.findIndex((r) => r.path.endsWith('/chat/completions'));
    const closed = await model.waitForClientClose(chat);
    assert.equal(closed.clientClosedEarly, true);
  });

  for (const [status, message] of [
    [400, 'mock bad request'],
    [401, 'mock invalid api key'],
  ] as const) {
    test(`an HTTP ${status} from the model fails the turn with model_error naming the status and message, without a retry`, async () => {
      model.enqueue({ kind: 'error', status, message });
      const io = recordingTurnIO();
      const err = await modelError((await newDriver()).runTurn(io));
      assert.equal(err.code, 'model_error');
      assert.equal(err.message, `${status} ${message}`);
      assert.equal(err.details.status, status);
      assert.equal(err.details.modelServiceId, 'scripted');
      assert.equal(model.completions().length, 1, 'a client error is not retried');
      assert.deepEqual(kinds(io.updates), []);
    });
  }

  test('a 429 honouring Retry-After is retried, the retry is on the stream, and the turn completes', async () => {
    model.enqueue({ kind: 'error', status: 429, message: 'slow down', retryAfterSeconds: 0 }, { kind: 'reply', text: 'after the wait' });
    const io = recordingTurnIO();
    const result = await (await newDriver()).runTurn(io);
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(model.completions().length, 2);
    const retry = io.updates.find((u) => u.sessionUpdate === 'model_retry') as Record<string, any>;
    assert.deepEqual(
      { attempt: retry.attempt, delayMs: retry.delayMs, status: retry.status, message: retry.message },
      { attempt: 1, delayMs: 0, status: 429, message: '429 slow down' },
    );
    assert.deepEqual(texts(io.updates, 'agent_message_chunk'), ['after the wait']);
  });

  test('a 500 that persists is retried a bounded number of times, then fails the turn with model_error', async () => {
    for (let i = 0; i < 4; i++) model.enqueue({ kind: 'error', status: 500, message: 'boom' });
    const io = recordingTurnIO();
    const driver = await createBuiltinDriver({
      services: services(),
      maxTurnIterations: 10,
      clock: systemClock,
      retry: { attempts: 2, baseMs: 1, maxDelayMs: 1000 },
    });
    const err = await modelError(driver.runTurn(io));
    assert.equal(err.details.status, 500);
    assert.equal(model.completions().length, 3, 'the first request and two retries');
    assert.deepEqual(
      io.updates.filter((u) => u.sessionUpdate === 'model_retry').map((u: Record<string, any>) => [u.attempt, u.delayMs]),
      [[1, 1], [2, 2]],
      'backoff doubles',
    );
  });

  test('a Retry-After beyond the bound is not waited for: the turn fails at once', async () => {
    model.enqueue({ kind: 'error', status: 429, message: 'come back tomorrow', retryAfterSeconds: 3600 });
    const err = await modelError((await newDriver()).runTurn(recordingTurnIO()));
    assert.equal(err.details.retryAfterMs, 3_600_000);
    assert.equal(model.completions().length, 1);
  });

  test('usage_update reports the context fill against the configured window, and the usage chunk carries the cost', async () => {
    model.enqueue({ kind: 'reply', text: 'priced', usage: { promptTokens: 1_000, completionTokens: 500, cachedTokens: 200 } });
    const svc = services({
      models: [{ id: 'scripted-model', contextWindow: 50_000, price: { inputPerMillion: 2, outputPerMillion: 10, cachedInputPerMillion: 1 } }],
    });
    const io = recordingTurnIO();
    await (await newDriver(10, svc)).runTurn(io);
    const chunk = io.updates.at(-2) as Record<string, any>;
    // 800 × 2 + 200 × 1 + 500 × 10 per million
    assert.deepEqual(chunk._meta.usage.cost, { amount: 0.0068, currency: 'USD' });
    assert.deepEqual(io.updates.at(-1), { sessionUpdate: 'usage_update', used: 1_000, size: 50_000 });
  });

  test('a stream cut mid-way fails the turn with model_error', async () => {
    model.enqueue({ kind: 'disconnect', text: 'half an ans' });
    const io = recordingTurnIO();
    const err = await modelError((await newDriver()).runTurn(io));
    assert.equal(err.code, 'model_error');
    assert.match(err.message, /interrupted|ended before/);
    assert.deepEqual(texts(io.updates, 'agent_message_chunk'), ['half an ans']);
  });

  test('a stream that goes silent past the idle timeout fails the turn with model_error and closes the connection', async () => {
    model.enqueue({ kind: 'hang', text: 'started' });
    const driver = await createBuiltinDriver({ services: services(), maxTurnIterations: 5, clock: systemClock, streamIdleTimeoutMs: 50 });
    const err = await modelError(driver.runTurn(recordingTurnIO()));
    assert.equal(err.code, 'model_error');
    assert.match(err.message, /stalled/);
    const chat = model.requests.findIndex((r) => r.path.endsWith('/chat/completions'));
    assert.equal((await model.waitForClientClose(chat)).clientClosedEarly, true);
  });

  test('an unreachable model service fails the turn with model_error naming the service', async () => {
    const gone = await startScriptedModel();
    await gone.close();
    const driver = await newDriver(10, new ModelServices([{ id: 'gone', baseUrl: gone.url, defaultModel: 'm' }], { clock: systemClock, home: tmpdir() }));
    const err = await modelError(driver.runTurn(recordingTurnIO()));
    assert.equal(err.code, 'model_error');
    assert.match(err.message, /gone/);
  });

  test('without any model service a prompt fails with model_not_configured saying how to configure one', async () => {
    const home = tmpdir();
    const driver = await createBuiltinDriver({ services: new ModelServices([], { clock: systemClock, home }), maxTurnIterations: 5, clock: systemClock });
    assert.deepEqual(driver.state().models, { currentModelId: null, availableModels: [] });
    const err = await modelError(driver.runTurn(recordingTurnIO()));
    assert.equal(err.code, 'model_not_configured');
    assert.match(err.message, /OPENAI_BASE_URL/);
    assert.match(err.message, /OPENAI_API_KEY/);
    assert.ok(err.message.includes(`${home}/config.json`), err.message);
  });

  test('restore() rebuilds the conversation so the next turn sends everything said and done before', async () => {
    const driver = await newDriver();
    driver.restore([
      { kind: 'user', content: [{ type: 'text', text: 'read the readme' }] },
      { kind: 'assistant', text: 'Reading.', toolCalls: [{ toolCallId: 'old_1', name: 'workspace_read', args: { path: 'README.md' } }] },
      { kind: 'tool_result', toolCallId: 'old_1', outcome: { ok: true, result: { value: 'readme text' } } },
      { kind: 'assistant', text: 'It is a readme.', toolCalls: [] },
    ]);
    model.enqueue({ kind: 'reply', toolCalls: [{ id: 'old_1', name: 'workspace_list', arguments: {} }] }, { kind: 'reply', text: 'ok' });
    const io = recordingTurnIO({ prompt: 'and now?', tools: [toolDef('workspace_read'), toolDef('workspace_list')] });
    await driver.runTurn(io);
    const messages = model.completions()[0]!.messages as any[];
    assert.deepEqual(messages.slice(1), [
      { role: 'user', content: 'read the readme' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [{ id: 'old_1', type: 'function', function: { name: 'workspace_read', arguments: '{"path":"README.md"}' } }],
      },
      { role: 'tool', tool_call_id: 'old_1', content: 'readme text' },
      { role: 'assistant', content: 'It is a readme.' },
      { role: 'user', content: 'and now?' },
    ]);
    // A call id the model reuses after a restore still gets a session-unique id.
    assert.notEqual(io.calls[0]!.toolCallId, 'old_1');
  });

  test('restore() fills in a missing tool result so the conversation stays acceptable to the model', async () => {
    const driver = await newDriver();
    driver.restore([
      { kind: 'user', content: [{ type: 'text', text: 'go' }] },
      { kind: 'assistant', text: '', toolCalls: [{ toolCallId: 'lost', name: 'workspace_exec', args: { command: 'ls' } }] },
      { kind: 'tool_result', toolCallId: 'stray', outcome: { ok: true, result: { value: 'x' } } },
    ]);
    await driver.runTurn(recordingTurnIO({ prompt: 'again' }));
    const messages = model.completions()[0]!.messages as any[];
    assert.equal(messages[3].role, 'tool');
    assert.equal(messages[3].tool_call_id, 'lost');
    assert.equal(JSON.parse(messages[3].content).error.code, 'cancelled');
    assert.equal(messages.filter((m) => m.role === 'tool').length, 1);
  });

  test('the plan tool emits a plan update and is answered ok without reaching the session', async () => {
    const entries = [
      { content: 'Read the code', priority: 'high', status: 'in_progress' },
      { content: 'Write the fix', priority: 'medium', status: 'pending' },
    ];
    model.enqueue({ kind: 'reply', toolCalls: [{ id: 'p1', name: 'update_plan', arguments: { entries } }] }, { kind: 'reply', text: 'planned' });
    const io = recordingTurnIO();
    await (await newDriver()).runTurn(io);
    assert.equal(io.calls.length, 0);
    assert.deepEqual(io.updates.find((u) => u.sessionUpdate === 'plan'), { sessionUpdate: 'plan', entries });
    assert.deepEqual((model.completions()[1]!.messages as any[]).at(-1), { role: 'tool', tool_call_id: 'p1', content: 'ok' });
  });

  test('a malformed plan is refused back to the model and emits no plan update', async () => {
    model.enqueue(
      { kind: 'reply', toolCalls: [{ id: 'p1', name: 'update_plan', arguments: { entries: [{ content: 'x', priority: 'urgent', status: 'pending' }] } }] },
      { kind: 'reply', text: 'ok' },
    );
    const io = recordingTurnIO();
    await (await newDriver()).runTurn(io);
    assert.equal(io.updates.some((u) => u.sessionUpdate === 'plan'), false);
    assert.match(JSON.parse((model.completions()[1]!.messages as any[]).at(-1).content).error.message, /priority/);
  });

  test('images in a prompt and in tool results are sent as image parts the model can take', async () => {
    model.enqueue({ kind: 'reply', toolCalls: [{ id: 'img', name: 'workspace_image', arguments: { path: 'a.png' } }] }, { kind: 'reply', text: 'nice' });
    const io = recordingTurnIO({
      prompt: [
        { type: 'text', text: 'look' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ],
      tools: [toolDef('workspace_image')],
      answer: () => ({
        ok: true,
        result: { value: { width: 1 }, content: [{ type: 'text', text: 'a 1x1 image' }, { type: 'image', data: 'BBBB', mimeType: 'image/jpeg' }] },
      }),
    });
    await (await newDriver()).runTurn(io);
    const first = model.completions()[0]!.messages as any[];
    assert.deepEqual(first[1].content, [
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ]);
    const second = model.completions()[1]!.messages as any[];
    assert.deepEqual(second.at(-2), { role: 'tool', tool_call_id: 'img', content: 'a 1x1 image' });
    assert.equal(second.at(-1).role, 'user');
    assert.deepEqual(second.at(-1).content[1], { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,BBBB' } });
  });

  test('a tool whose name the function alphabet cannot carry is offered under a safe name and called by its real one', async () => {
    model.enqueue({ kind: 'reply', toolCalls: [{ id: 'a1', name: 'app_search', arguments: { q: 'x' } }] }, { kind: 'reply', text: 'ok' });
    const io = recordingTurnIO({ tools: [toolDef('app.search', { q: { type: 'string' } })] });
    await (await newDriver()).runTurn(io);
    assert.ok((model.completions()[0]!.tools as any[]).some((t) => t.function.name === 'app_search'));
    assert.equal(io.calls[0]!.name, 'app.search');
  });

  test('state() shows the current and available models, and setModel switches the model the next turn uses', async () => {
    const driver = await newDriver(10, services({ defaultModel: undefined }));
    assert.deepEqual(driver.state().models, {
      currentModelId: 'scripted/scripted-model',
      availableModels: [
        { modelId: 'scripted/scripted-model', name: 'scripted-model' },
        { modelId: 'scripted/other-model', name: 'other-model' },
      ],
    });
    await driver.setModel('scripted/other-model');
    assert.equal(driver.state().models.currentModelId, 'scripted/other-model');
    await driver.runTurn(recordingTurnIO());
    assert.equal(model.completions()[0]!.model, 'other-model');
    await driver.setModel('scripted-model');
    assert.equal(driver.state().models.currentModelId, 'scripted/scripted-model');
    const err = await modelError(driver.setModel('scripted/no-such-model'));
    assert.equal(err.code, 'model_not_found');
  });

  test('an unknown model service id is refused with model_not_found', async () => {
    const err = await modelError(createBuiltinDriver({ services: services(), modelServiceId: 'nope', maxTurnIterations: 5, clock: systemClock }));
    assert.equal(err.code, 'model_not_found');
  });
});
