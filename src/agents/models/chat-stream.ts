import { StringDecoder } from 'node:string_decoder';
import type OpenAI from 'openai';
import { takeNodeBody } from './http-fetch.js';
import { loadedOpenaiSdk } from './openai-sdk.js';

/**
 * The chunks of a streamed chat completion, parsed from the raw response the
 * `openai` client returned (`.asResponse()`: it has already sent the request,
 * retried and turned an error status into its APIError). Read from the node
 * stream under it when our own fetch made it, else from its web body.
 *
 * Follows the client's own stream (openai/core/streaming.js): events end at a
 * blank line, `data:` lines join with a newline, comments are skipped, an
 * unterminated last event is dropped, `[DONE]` ends the chunks, a chunk with
 * an `error` member is thrown as the package's APIError, and a stream cut
 * mid-way throws what the socket reported.
 */
export async function* chatChunks(response: Response): AsyncGenerator<OpenAI.Chat.ChatCompletionChunk> {
  const source: AsyncIterable<Uint8Array> | null = takeNodeBody(response) ?? response.body;
  if (source === null) throw new Error('the model answered a streamed request without a body');
  const decoder = new StringDecoder('utf8');
  const event = new SseEvent();
  let pending = '';
  let done = false;
  for await (const bytes of source) {
    // After `[DONE]` the client reads the rest of the body and ignores it; so does this, leaving the connection reusable.
    if (done) continue;
    pending += decoder.write(bytes as Buffer);
    let start = 0;
    for (;;) {
      const end = lineEnd(pending, start);
      if (end === -1) break;
      const data = event.line(pending.slice(start, end));
      start = end + (pending.charCodeAt(end) === 0x0d && pending.charCodeAt(end + 1) === 0x0a ? 2 : 1);
      if (data === undefined) continue;
      if (data.startsWith('[DONE]')) {
        done = true;
        break;
      }
      const chunk = JSON.parse(data) as OpenAI.Chat.ChatCompletionChunk & { error?: unknown };
      if (chunk?.error) throw streamError(chunk.error, response.headers);
      yield chunk;
    }
    pending = pending.slice(start);
  }
}

/**
 * The first line break at or after `from`: `\n`, `\r\n` or a lone `\r`. A `\r`
 * at the very end waits for the next bytes, which may bring its `\n`.
 */
function lineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) return i;
    if (c === 0x0d) return i + 1 < text.length ? i : -1;
  }
  return -1;
}

/** One event's fields as its lines arrive; `line` returns the data of an event a blank line completed. */
class SseEvent {
  private data: string[] = [];
  private named = false;
  private thread = false;

  line(line: string): string | undefined {
    if (line === '') {
      if (!this.named && this.data.length === 0) return undefined;
      const data = this.data.join('\n');
      // Events named `thread.*` belong to the Assistants API, not to chat completions.
      const skip = this.thread;
      this.data = [];
      this.named = false;
      this.thread = false;
      return skip ? undefined : data;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') {
      this.named = true;
      this.thread = value.startsWith('thread.');
    }
    return undefined;
  }
}

function streamError(error: unknown, headers: Headers): Error {
  const sdk = loadedOpenaiSdk();
  if (!sdk) return new Error(`the model stream reported an error: ${JSON.stringify(error)}`);
  return new sdk.APIError(undefined, error as object, undefined, headers);
}
