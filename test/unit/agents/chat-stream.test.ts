import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { chatChunks } from '../../../src/agents/models/chat-stream.js';
import { createHttpFetch } from '../../../src/agents/models/http-fetch.js';
import { openaiSdk } from '../../../src/agents/models/openai-sdk.js';

/** A response whose body arrives as these pieces, cut wherever the test says. */
function answer(pieces: readonly string[]): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const p of pieces) controller.enqueue(new TextEncoder().encode(p));
      controller.close();
    },
  });
  return new Response(body);
}

async function all(response: Response): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of chatChunks(response)) out.push(chunk);
  return out;
}

test('events split anywhere, with CRLF, LF or CR line ends, come out whole', async () => {
  const text = 'data: {"id":"a"}\r\n\r\ndata: {"id":"b"}\n\ndata: {"id":"c"}\r\rdata: [DONE]\n\n';
  for (let cut = 1; cut < text.length; cut += 1) {
    assert.deepEqual(await all(answer([text.slice(0, cut), text.slice(cut)])), [{ id: 'a' }, { id: 'b' }, { id: 'c' }], `cut at ${cut}`);
  }
});

test('comments and other fields are skipped, data lines join, nothing after [DONE] counts', async () => {
  const text = ': keep-alive\n\nevent: message\nid: 7\ndata: {"id":\ndata: "a"}\n\ndata: [DONE]\n\ndata: {"id":"late"}\n\n';
  assert.deepEqual(await all(answer([text])), [{ id: 'a' }]);
});

test('an event without its closing blank line is dropped, as the client drops it', async () => {
  assert.deepEqual(await all(answer(['data: {"id":"a"}\n\ndata: {"id":"b"}\n'])), [{ id: 'a' }]);
});

test('a character split between two reads is decoded whole', async () => {
  const bytes = new TextEncoder().encode('data: {"t":"é"}\n\n');
  const at = bytes.indexOf(0xc3) + 1;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.slice(0, at));
      controller.enqueue(bytes.slice(at));
      controller.close();
    },
  });
  assert.deepEqual(await all(new Response(body)), [{ t: 'é' }]);
});

test('a chunk carrying an error is thrown as the client package would throw it', async () => {
  const sdk = await openaiSdk();
  await assert.rejects(all(answer(['data: {"error":{"message":"overloaded","type":"server_error"}}\n\n'])), (err: unknown) => {
    assert.ok(err instanceof sdk.APIError);
    assert.match((err as Error).message, /overloaded/);
    return true;
  });
});

/** Read from the node response a model service's connection gives (the built-in agent's path). */
describe('a streamed answer read from its node response', () => {
  const STREAM = 'data: {"id":"a"}\n\ndata: [DONE]\n\n';
  let answer: (res: http.ServerResponse) => void = () => undefined;
  let connections = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  server.on('connection', () => connections++);
  const pool = createHttpFetch();
  let url!: URL;
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`);
  });
  after(() => {
    pool.close();
    server.closeAllConnections();
    server.close();
  });
  const post = async () => {
    const res = await pool.post(url, { 'content-type': 'application/json' }, '{}', new AbortController().signal, 5_000);
    return { res, reply: { body: res, headers: new Headers() } };
  };

  test('ends once [DONE] is read from a response already in whole, before its end event, and its connection serves the next one', async () => {
    answer = (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(STREAM);
    const before = connections;
    for (let i = 0; i < 2; i++) {
      const { res, reply } = await post();
      const chunks = [];
      for await (const chunk of chatChunks(reply)) chunks.push(chunk);
      assert.deepEqual(chunks, [{ id: 'a' }]);
      // The end event is a turn of the event loop later: what follows the answer (a turn's last frames) need not wait for it.
      assert.equal(res.readableEnded, false, 'the chunks ended before the response did');
      await new Promise((r) => res.once('end', r));
    }
    assert.equal(connections - before, 1, 'both answers came on one kept-alive connection');
  });

  test('waits for the end of a response still open after [DONE], as the client does', async () => {
    let open!: http.ServerResponse;
    answer = (res) => {
      open = res;
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write(STREAM);
    };
    const { res, reply } = await post();
    const chunks = chatChunks(reply);
    assert.deepEqual((await chunks.next()).value, { id: 'a' });
    // [DONE] came in the same read as the chunk: the generator has seen it once it has run again.
    let settled = false;
    const last = chunks.next().then((r) => ((settled = true), r));
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    assert.equal(settled, false, 'the response is not over yet');
    open.end();
    assert.equal((await last).done, true);
    assert.equal(res.readableEnded, true);
  });
});
