import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { chatPoster, JSON_BODY_HEADERS } from '../../../src/agents/models/chat-post.js';
import { chatChunks } from '../../../src/agents/models/chat-stream.js';
import { createHttpFetch } from '../../../src/agents/models/http-fetch.js';

/**
 * The poster sends what the service's `openai` client would send and fails as
 * it would fail; each case asks both the same thing and compares.
 */

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

const STREAM = 'data: {"choices":[{"index":0,"delta":{"content":"OK."},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

describe('posting a chat completion without the client', () => {
  const seen: Seen[] = [];
  let answer: (res: http.ServerResponse) => void = () => undefined;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      answer(res);
    });
  });
  let baseURL = '';
  const pool = createHttpFetch();
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
  });
  after(() => {
    pool.close();
    server.closeAllConnections();
    server.close();
  });

  const client = (options: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) =>
    new OpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0, fetch: pool.fetch, ...options });
  const viaClient = (c: OpenAI, body: string) =>
    c.chat.completions.create({ model: 'm', messages: [], stream: true }, { body, headers: JSON_BODY_HEADERS, signal: new AbortController().signal }).asResponse();

  test('the same method, URL and headers as the client, the body as given, and the stream read whole', async () => {
    answer = (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(STREAM);
    const c = client({ organization: 'org-1', defaultHeaders: { 'x-extra': 'yes' } });
    seen.length = 0;
    await (await viaClient(c, '{"a":1}')).text();
    const reply = await (await chatPoster(c, pool)).post('{"a":1}', new AbortController().signal);
    const chunks = [];
    for await (const chunk of chatChunks(reply)) chunks.push(chunk);
    assert.equal(chunks[0]?.choices[0]?.delta.content, 'OK.');
    const [byClient, byPoster] = seen;
    assert.equal(byPoster!.method, byClient!.method);
    assert.equal(byPoster!.path, '/v1/chat/completions');
    assert.equal(byPoster!.path, byClient!.path);
    assert.equal(byPoster!.body, '{"a":1}');
    const names = (h: http.IncomingHttpHeaders) => Object.keys(h).filter((n) => n !== 'content-length' && n !== 'connection').sort();
    assert.deepEqual(names(byPoster!.headers), names(byClient!.headers));
    for (const name of names(byClient!.headers)) assert.equal(byPoster!.headers[name], byClient!.headers[name], name);
    assert.equal(byPoster!.headers.authorization, 'Bearer sk-test');
    assert.equal(byPoster!.headers['openai-organization'], 'org-1');
  });

  test('an error status throws the error the client throws: class, status, message, body and headers', async () => {
    for (const [status, text] of [
      [400, '{"error":{"message":"bad model","type":"invalid_request_error","code":"model_not_found"}}'],
      [429, 'slow down'],
      [503, ''],
    ] as const) {
      answer = (res) => res.writeHead(status, { 'retry-after': '2' }).end(text);
      const c = client();
      const fromClient = await viaClient(c, '{}').then(() => assert.fail('the client did not throw'), (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
      const fromPoster = await (await chatPoster(c, pool)).post('{}', new AbortController().signal).then(
        () => assert.fail('the poster did not throw'),
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      );
      assert.equal(fromPoster.constructor, fromClient.constructor, `${status}`);
      assert.equal(fromPoster.status, status);
      assert.equal(fromPoster.message, fromClient.message);
      assert.deepEqual(fromPoster.error, fromClient.error);
      assert.equal(fromPoster.headers?.get('retry-after'), '2');
    }
  });

  test('a compressed 2xx body is refused as a connection error, and its connection is let go rather than left half read', async () => {
    let closed!: Promise<void>;
    answer = (res) => {
      closed = new Promise((resolve) => res.on('close', () => resolve()));
      // Headers and a first piece only: a connection kept for the rest would hang here until the server gave up.
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      res.write(Buffer.from([0x1f, 0x8b, 0x08, 0x00]));
    };
    await assert.rejects((await chatPoster(client(), pool)).post('{}', new AbortController().signal), (e: unknown) => {
      assert.ok(e instanceof OpenAI.APIConnectionError && !(e instanceof OpenAI.APIConnectionTimeoutError));
      assert.match(String((e as Error).cause), /gzip-encoded body though asked for identity/);
      return true;
    });
    await closed;
    answer = (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(STREAM);
    const chunks = [];
    for await (const chunk of chatChunks(await (await chatPoster(client(), pool)).post('{}', new AbortController().signal))) chunks.push(chunk);
    assert.equal(chunks[0]?.choices[0]?.delta.content, 'OK.', 'the next post is answered');
  });

  test('no head within the client timeout is its timeout error; a refused connection its connection error; an abort its abort error', async () => {
    answer = () => undefined; // never answers
    const slow = client({ timeout: 50 });
    await assert.rejects((await chatPoster(slow, pool)).post('{}', new AbortController().signal), OpenAI.APIConnectionTimeoutError);

    const stop = new AbortController();
    const pending = (await chatPoster(client(), pool)).post('{}', stop.signal);
    setTimeout(() => stop.abort(), 20);
    await assert.rejects(pending, OpenAI.APIUserAbortError);

    const gone = http.createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const port = (gone.address() as AddressInfo).port;
    await new Promise<void>((r) => gone.close(() => r()));
    const refused = client({ baseURL: `http://127.0.0.1:${port}/v1` });
    await assert.rejects((await chatPoster(refused, pool)).post('{}', new AbortController().signal), (e: unknown) => {
      assert.ok(e instanceof OpenAI.APIConnectionError && !(e instanceof OpenAI.APIConnectionTimeoutError));
      assert.match(String((e as Error).cause), /ECONNREFUSED/);
      return true;
    });
  });
});
