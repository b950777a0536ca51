import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import OpenAI, { APIError } from 'openai';
import { startScriptedModel, type ScriptedModel } from '../../../src/devtools/scripted-model/index.js';

let model: ScriptedModel;
let client: OpenAI;

before(async () => {
  model = await startScriptedModel({ models: ['alpha', 'beta'] });
  client = new OpenAI({ baseURL: model.url, apiKey: 'sk-test', maxRetries: 0 });
});
after(() => model.close());
beforeEach(() => model.reset());

const ask = (text: string, extra: Record<string, unknown> = {}) =>
  client.chat.completions.create({
    model: 'alpha',
    messages: [{ role: 'user', content: text }],
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  } as OpenAI.Chat.ChatCompletionCreateParamsStreaming);

async function collect(text: string, extra: Record<string, unknown> = {}) {
  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const c of await ask(text, extra)) chunks.push(c);
  return chunks;
}

const contents = (chunks: OpenAI.Chat.ChatCompletionChunk[]) =>
  chunks.map((c) => c.choices[0]?.delta.content).filter((t): t is string => typeof t === 'string');

describe('scripted model server', () => {
  test('an empty script answers OK. at once, with a usage chunk when the client asked for one', async () => {
    const chunks = await collect('hello');
    assert.deepEqual(contents(chunks), ['OK.']);
    assert.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'stop');
    const usage = chunks.at(-1)?.usage;
    assert.ok(usage && usage.prompt_tokens > 0 && usage.total_tokens === usage.prompt_tokens + usage.completion_tokens);
  });

  test('no usage chunk is sent when the client did not ask for one and the step does not force it', async () => {
    const chunks = await collect('hello', { stream_options: undefined });
    assert.equal(chunks.some((c) => c.usage), false);
    model.enqueue({ kind: 'reply', text: 'x', usage: { promptTokens: 7, completionTokens: 3, reasoningTokens: 1, cachedTokens: 2 } });
    const forced = await collect('again', { stream_options: undefined });
    assert.deepEqual(forced.at(-1)?.usage, {
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
      prompt_tokens_details: { cached_tokens: 2 },
      completion_tokens_details: { reasoning_tokens: 1 },
    });
  });

  test('text is streamed in the scripted chunks, in order', async () => {
    model.enqueue({ kind: 'reply', text: ['Hel', 'lo ', 'world'] }, { kind: 'reply', text: 'abcdefghij', chunkChars: 4 });
    assert.deepEqual(contents(await collect('one')), ['Hel', 'lo ', 'world']);
    assert.deepEqual(contents(await collect('two')), ['abcd', 'efgh', 'ij']);
  });

  test('delays between chunks keep every chunk and their order', async () => {
    model.enqueue({ kind: 'reply', text: ['a', 'b', 'c'], delayMs: 5 });
    assert.deepEqual(contents(await collect('slow')), ['a', 'b', 'c']);
  });

  test('reasoning arrives as reasoning_content deltas before the text', async () => {
    model.enqueue({ kind: 'reply', reasoning: ['think ', 'hard'], text: 'done' });
    const chunks = await collect('why');
    const deltas = chunks.map((c) => c.choices[0]?.delta as Record<string, unknown> | undefined);
    const reasoning = deltas.map((d) => d?.reasoning_content).filter(Boolean);
    assert.deepEqual(reasoning, ['think ', 'hard']);
    const firstText = deltas.findIndex((d) => d?.content === 'done');
    const lastReasoning = deltas.findLastIndex((d) => d?.reasoning_content !== undefined);
    assert.ok(lastReasoning < firstText);
  });

  test('several tool calls stream with id and name first and their arguments in fragments', async () => {
    model.enqueue({
      kind: 'reply',
      toolCalls: [
        { id: 'call_a', name: 'workspace_read', arguments: { path: 'README.md' }, fragments: 3 },
        { name: 'workspace_list', arguments: '{"path":"."}' },
      ],
    });
    const chunks = await collect('read it');
    const calls = new Map<number, { id?: string; name?: string; args: string; pieces: number }>();
    for (const c of chunks) {
      for (const tc of c.choices[0]?.delta.tool_calls ?? []) {
        const cur = calls.get(tc.index) ?? { args: '', pieces: 0 };
        if (tc.id) cur.id = tc.id;
        if (tc.function?.name) cur.name = tc.function.name;
        cur.args += tc.function?.arguments ?? '';
        cur.pieces += 1;
        calls.set(tc.index, cur);
      }
    }
    assert.equal(calls.get(0)?.id, 'call_a');
    assert.equal(calls.get(0)?.name, 'workspace_read');
    assert.deepEqual(JSON.parse(calls.get(0)!.args), { path: 'README.md' });
    assert.equal(calls.get(0)?.pieces, 3);
    assert.match(calls.get(1)?.id ?? '', /^call_\d+$/);
    assert.equal(calls.get(1)?.args, '{"path":"."}');
    assert.equal(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason, 'tool_calls');
  });

  test('a non-streaming request gets the whole answer with usage', async () => {
    model.enqueue({ kind: 'reply', text: 'whole', reasoning: 'hmm', toolCalls: [{ id: 'c1', name: 't', arguments: {} }] });
    const res = await client.chat.completions.create({ model: 'alpha', messages: [{ role: 'user', content: 'x' }] });
    const msg = res.choices[0]!.message as unknown as Record<string, any>;
    assert.equal(msg.content, 'whole');
    assert.equal(msg.reasoning_content, 'hmm');
    assert.equal(msg.tool_calls[0].function.name, 't');
    assert.equal(res.choices[0]!.finish_reason, 'tool_calls');
    assert.ok(res.usage!.total_tokens > 0);
  });

  for (const status of [400, 401, 429, 500]) {
    test(`an error step answers HTTP ${status} with an OpenAI error body`, async () => {
      model.enqueue({ kind: 'error', status, message: `scripted ${status}` });
      const err = await ask('fail').then(
        () => assert.fail('expected an error'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof APIError);
      assert.equal(err.status, status);
      assert.equal(err.message, `${status} scripted ${status}`);
    });
  }

  test('a disconnect step cuts the stream after its partial text and the client sees a failure', async () => {
    model.enqueue({ kind: 'disconnect', text: ['par', 'tial'] });
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const c of await ask('cut')) {
        const t = c.choices[0]?.delta.content;
        if (t) seen.push(t);
      }
    });
    assert.deepEqual(seen, ['par', 'tial']);
    assert.equal(model.requests[0]?.serverDisconnected, true);
    assert.equal(model.requests[0]?.clientClosedEarly, false);
  });

  test('a hang step waits until the client aborts, and the server notes the closed connection', async () => {
    model.enqueue({ kind: 'hang', text: 'waiting' });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'alpha', messages: [{ role: 'user', content: 'hang' }], stream: true },
      { signal: controller.signal },
    );
    const seen: string[] = [];
    for await (const c of stream) {
      const t = c.choices[0]?.delta.content;
      if (t) {
        seen.push(t);
        controller.abort();
      }
    }
    assert.deepEqual(seen, ['waiting']);
    const rec = await model.waitForClientClose(0);
    assert.equal(rec.clientClosedEarly, true);
  });

  test('GET /v1/models lists the configured models and can be changed', async () => {
    const list = await client.models.list();
    assert.deepEqual(list.data.map((m) => m.id), ['alpha', 'beta']);
    model.setModels(['gamma']);
    assert.deepEqual((await client.models.list()).data.map((m) => m.id), ['gamma']);
  });

  test('every request is recorded with its method, path, headers and parsed body', async () => {
    await collect('remember me');
    const [rec] = await model.waitForRequests(1);
    assert.equal(rec!.method, 'POST');
    assert.equal(rec!.path, '/v1/chat/completions');
    assert.equal(rec!.headers.authorization, 'Bearer sk-test');
    assert.equal(rec!.body.messages[0].content, 'remember me');
    assert.equal(model.completions()[0]!.model, 'alpha');
  });

  test('a rule function chooses the reply from the last user message when the queue is empty', async () => {
    model.setRule((req) => (req.lastUserText.includes('weather') ? { kind: 'reply', text: 'sunny' } : undefined));
    assert.deepEqual(contents(await collect('what is the weather')), ['sunny']);
    assert.deepEqual(contents(await collect('something else')), ['OK.']);
    model.enqueue({ kind: 'reply', text: 'queued first' });
    assert.deepEqual(contents(await collect('weather again')), ['queued first']);
  });

  test('the default reply is configurable', async () => {
    model.setDefault({ kind: 'reply', text: 'always this' });
    assert.deepEqual(contents(await collect('a')), ['always this']);
    assert.deepEqual(contents(await collect('b')), ['always this']);
  });

  test('an API key, when configured, is required', async () => {
    const guarded = await startScriptedModel({ apiKey: 'right' });
    try {
      const wrong = new OpenAI({ baseURL: guarded.url, apiKey: 'wrong', maxRetries: 0 });
      await assert.rejects(wrong.models.list(), (e: unknown) => e instanceof APIError && e.status === 401);
      const right = new OpenAI({ baseURL: guarded.url, apiKey: 'right', maxRetries: 0 });
      assert.equal((await right.models.list()).data[0]?.id, 'scripted-model');
    } finally {
      await guarded.close();
    }
  });
});
