import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatChunks } from '../../../src/agents/models/chat-stream.js';
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
