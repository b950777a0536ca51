import { Readable } from 'node:stream';
import type * as OpenAISdk from 'openai';
import { chatChunks } from './chat-stream.js';

/** One streamed answer of a single chunk, as an OpenAI-compatible server sends it. */
const CANNED_STREAM =
  'data: {"id":"rehearsal","object":"chat.completion.chunk","created":0,"model":"rehearsal","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}\n\n' +
  'data: [DONE]\n\n';

/**
 * Runs one streamed chat completion through a throwaway client, against a
 * canned answer handed over the way the services' fetch hands one over (a web
 * stream over a Node stream), with no request on the wire. The first call
 * through the package compiles its request building and the parse of its raw
 * response (chat-stream.ts), as a turn makes them; the daemon does this in its
 * warm-up, so the first turn does not.
 */
export async function rehearseStreamedCompletion(sdk: typeof OpenAISdk): Promise<void> {
  const fetch = async (): Promise<Response> =>
    new Response(Readable.toWeb(Readable.from([Buffer.from(CANNED_STREAM)])) as ReadableStream<Uint8Array>, {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
    });
  const client = new sdk.default({ apiKey: 'rehearsal', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0, fetch });
  const response = await client.chat.completions
    .create({ model: 'rehearsal', messages: [{ role: 'user', content: 'rehearsal' }], stream: true })
    .asResponse();
  for await (const chunk of chatChunks(response)) void chunk;
}
