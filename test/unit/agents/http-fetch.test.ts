import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import OpenAI from 'openai';
import { createHttpFetch, takeNodeBody, type HttpFetch } from '../../../src/agents/models/http-fetch.js';
import { startScriptedModel, type ScriptedModel } from '../../../src/devtools/scripted-model/index.js';

// The model fetch against the project's scripted model over real loopback HTTP:
// what the openai client needs of it (streamed bodies, aborts, error statuses).

let model: ScriptedModel;
let http: HttpFetch;
before(async () => {
  model = await startScriptedModel();
});
after(() => model.close());
beforeEach(() => {
  model.reset();
  http = createHttpFetch();
});
afterEach(() => http.close());

const chatBody = (stream: boolean) =>
  JSON.stringify({ model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }], stream });

const postChat = (stream: boolean, signal?: AbortSignal) =>
  http.fetch(`${model.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: chatBody(stream),
    signal,
  });

const client = () => new OpenAI({ baseURL: model.url, apiKey: 'unused', maxRetries: 0, fetch: http.fetch });

/** The `data:` payloads of SSE text, `[DONE]` included. */
const sseData = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice('data: '.length));

describe('model fetch on node:http', () => {
  test('a JSON body is sent whole with its length and the answer comes back with status, headers and body', async () => {
    const res = await postChat(false);
    assert.equal(res.status, 200);
    assert.equal(res.ok, true);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const answer = (await res.json()) as { choices: { message: { content: string } }[] };
    assert.equal(answer.choices[0]!.message.content, 'OK.');
    const [request] = await model.waitForRequests(1);
    assert.equal(request!.method, 'POST');
    assert.equal(request!.headers['content-length'], String(Buffer.byteLength(chatBody(false))));
    assert.equal(request!.body.messages[0].content, 'hi');
  });

  test('a streamed body is a web ReadableStream whose chunks arrive before the server ends the answer', async () => {
    // A hang step sends its deltas, then never ends the response: reading them proves nothing is buffered to the end.
    model.enqueue({ kind: 'hang', text: ['first', 'second'] });
    const res = await postChat(true);
    assert.ok(res.body instanceof ReadableStream);
    const reader = res.body.getReader();
    let text = '';
    while (!text.includes('second')) {
      const { value, done } = await reader.read();
      assert.equal(done, false, 'the stream must stay open while the server hangs');
      text += Buffer.from(value!).toString('utf8');
    }
    const deltas = sseData(text).map((d) => JSON.parse(d).choices[0].delta.content);
    assert.deepEqual(deltas.filter((d) => typeof d === 'string' && d !== ''), ['first', 'second']);
    await reader.cancel();
    assert.equal((await model.waitForClientClose(0)).clientClosedEarly, true, 'cancelling the body closes the connection');
  });

  test('a body is read one way only: taken as a node stream its web body refuses, read on the web it cannot be taken', async () => {
    const taken = await postChat(true);
    const node = takeNodeBody(taken);
    assert.ok(node, 'an untouched body can be taken');
    assert.equal(takeNodeBody(taken), undefined, 'only once');
    await assert.rejects(taken.text(), /taken as a node stream/);
    let text = '';
    for await (const chunk of node) text += Buffer.from(chunk as Buffer).toString('utf8');
    assert.ok(sseData(text).includes('[DONE]'), 'the node stream holds the whole answer');

    const read = await postChat(true);
    assert.ok(sseData(await read.text()).includes('[DONE]'));
    assert.equal(takeNodeBody(read), undefined, 'a body already read on the web is not handed over');
    assert.equal(takeNodeBody(new Response('elsewhere')), undefined, 'nor a Response another fetch made');
  });

  test('the openai client streams a completion through it chunk by chunk', async () => {
    model.enqueue({ kind: 'reply', text: ['Hel', 'lo', ' there'] });
    const stream = await client().chat.completions.create({
      model: 'scripted-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const deltas: string[] = [];
    for await (const chunk of stream) {
      const d = chunk.choices[0]?.delta?.content;
      if (d) deltas.push(d);
    }
    assert.deepEqual(deltas, ['Hel', 'lo', ' there']);
  });

  test('aborting mid-stream errors the body with an AbortError and the server sees the client go away', async () => {
    model.enqueue({ kind: 'hang', text: ['partial'] });
    const abort = new AbortController();
    const res = await postChat(true, abort.signal);
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    await assert.rejects(
      async () => {
        for (;;) if ((await reader.read()).done) break;
      },
      { name: 'AbortError' },
    );
    assert.equal((await model.waitForClientClose(0)).clientClosedEarly, true);
  });

  test('the openai client aborted mid-stream ends its iteration and the server sees the connection close', async () => {
    model.enqueue({ kind: 'hang', text: ['partial'] });
    const abort = new AbortController();
    const stream = await client().chat.completions.create(
      { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }], stream: true },
      { signal: abort.signal },
    );
    const seen: string[] = [];
    for await (const chunk of stream) {
      const d = chunk.choices[0]?.delta?.content;
      if (d) seen.push(d);
      if (d === 'partial') abort.abort();
    }
    assert.deepEqual(seen, ['partial']);
    assert.equal((await model.waitForClientClose(0)).clientClosedEarly, true);
  });

  test('a signal aborted before the call rejects with an AbortError and sends nothing', async () => {
    const abort = new AbortController();
    abort.abort();
    await assert.rejects(postChat(false, abort.signal), { name: 'AbortError' });
    assert.equal(model.requests.length, 0);
  });

  test('an error status comes back as a response with its body and headers, not as a rejection', async () => {
    model.enqueue({ kind: 'error', status: 429, message: 'slow down', code: 'rate_limit_exceeded', retryAfterSeconds: 7 });
    const res = await postChat(false);
    assert.equal(res.status, 429);
    assert.equal(res.ok, false);
    assert.equal(res.headers.get('retry-after'), '7');
    const body = (await res.json()) as { error: { message: string; code: string } };
    assert.equal(body.error.message, 'slow down');
    assert.equal(body.error.code, 'rate_limit_exceeded');
  });

  test('the openai client turns an error status into its API error with the server message', async () => {
    model.enqueue({ kind: 'error', status: 500, message: 'model crashed' });
    await assert.rejects(
      client().chat.completions.create({ model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] }),
      (err: unknown) => err instanceof OpenAI.InternalServerError && err.status === 500 && /model crashed/.test(err.message),
    );
  });

  test('a server that cuts the stream mid-answer errors the body instead of ending it quietly', async () => {
    model.enqueue({ kind: 'disconnect', text: ['half'] });
    const res = await postChat(true);
    await assert.rejects(res.text());
  });

  test('after close() the fetch refuses new requests', async () => {
    http.close();
    http.close();
    await assert.rejects(postChat(false), /closed/);
    assert.equal(model.requests.length, 0);
  });
});

describe('a JSON GET on the same connections', () => {
  test('reads the answer as JSON, sending the headers it is given, without the web Headers or Response', async () => {
    const page = (await http.getJson(`${model.url}/models`, { authorization: 'Bearer sk-test' }, 5_000)) as { data: { id: string }[] };
    assert.deepEqual(page.data.map((m) => m.id), ['scripted-model']);
    const [request] = await model.waitForRequests(1);
    assert.equal(request!.method, 'GET');
    assert.equal(request!.headers.authorization, 'Bearer sk-test');
  });

  test('refuses a failed status with the status in the message, and a closed pool', async () => {
    await assert.rejects(http.getJson(`${model.url}/no-such-route`, {}, 5_000), /^Error: 404/);
    http.close();
    await assert.rejects(http.getJson(`${model.url}/models`, {}, 5_000), /pool is closed/);
  });
});
