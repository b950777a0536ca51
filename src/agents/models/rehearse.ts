import { Readable } from 'node:stream';
import { chatChunks } from './chat-stream.js';

/** One streamed answer of a single chunk, as an OpenAI-compatible server sends it. */
const CANNED_STREAM =
  'data: {"id":"rehearsal","object":"chat.completion.chunk","created":0,"model":"rehearsal","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}\n\n' +
  'data: [DONE]\n\n';

/**
 * Parses one canned streamed chat completion from a Node stream, as a turn
 * reads its answer (chat-stream.ts), with no request on the wire: the first
 * parse compiles the SSE framing and the chunk loop. The daemon does this in
 * its warm-up, after making each service's poster (chat-post.ts), so the
 * first turn does neither.
 */
export async function rehearseStreamedCompletion(): Promise<void> {
  const reply = { body: Readable.from([Buffer.from(CANNED_STREAM)]), headers: new Headers() };
  for await (const chunk of chatChunks(reply)) void chunk;
}
