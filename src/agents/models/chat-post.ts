import type http from 'node:http';
import type OpenAI from 'openai';
import { assertIdentityBody, HeadTimeoutError, webHeaders, type HttpFetch } from './http-fetch.js';
import type { ChatReply } from './chat-stream.js';
import { openaiSdk } from './openai-sdk.js';

/** Sends one streamed chat completion request (its JSON text) and resolves once the answer's head is in. */
export interface ChatPoster {
  post(body: string, signal: AbortSignal): Promise<ChatReply>;
}

/** The header that makes the `openai` client send a string body as it is (client.js `buildBody`). */
export const JSON_BODY_HEADERS = { 'content-type': 'application/json' } as const;

/**
 * Posts chat completions as the service's `openai` client does, without going
 * through it per request: its URL, headers (key, user agent, platform, org and
 * project) and timeout are taken once from the client's own `buildRequest`, and
 * what comes back is judged as its `makeRequest` judges it with retries off
 * (the services' `maxRetries` is 0; the built-in agent retries itself): an
 * abort is its APIUserAbortError, no head within the timeout its
 * APIConnectionTimeoutError, any other failure to get a head its
 * APIConnectionError with the socket's error as cause, and a status outside
 * 2xx its APIError for that status with the body's JSON (or text). The client
 * built a web Request, Headers and Response for every call and logged through
 * them: about a third of Berth's own CPU between a prompt and its model request.
 */
export async function chatPoster(client: OpenAI, pool: HttpFetch): Promise<ChatPoster> {
  const sdk = await openaiSdk();
  const built = await client.buildRequest({ method: 'post', path: '/chat/completions', body: '', headers: JSON_BODY_HEADERS, stream: true });
  const url = new URL(built.url);
  const headers: Record<string, string> = {};
  new Headers(built.req.headers).forEach((value, name) => (headers[name] = value));
  headers['accept-encoding'] ??= 'identity';
  const timeoutMs = built.timeout;

  const failed = (err: unknown, signal: AbortSignal): Error => {
    if (signal.aborted) return new sdk.APIUserAbortError();
    if (err instanceof HeadTimeoutError) return new sdk.APIConnectionTimeoutError();
    return new sdk.APIConnectionError({ cause: err instanceof Error ? err : new Error(String(err)) });
  };

  return {
    async post(body, signal) {
      if (signal.aborted) throw new sdk.APIUserAbortError();
      let res: http.IncomingMessage;
      try {
        res = await pool.post(url, headers, body, signal, timeoutMs);
        assertIdentityBody(res);
      } catch (err) {
        throw failed(err, signal);
      }
      const status = res.statusCode ?? 0;
      if (status >= 200 && status <= 299) return nodeReply(res);
      const text = await readText(res).catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
      const json = parseJson(text);
      throw sdk.APIError.generate(status, json, json ? undefined : text, webHeaders(res));
    },
  };
}

/** A 2xx answer: its body read straight from the node stream, its headers built only if asked (a stream error). */
function nodeReply(res: http.IncomingMessage): ChatReply {
  let headers: Headers | undefined;
  return {
    body: res,
    get headers() {
      return (headers ??= webHeaders(res));
    },
  };
}

function readText(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** The client's `safeJSON`: the parsed body, or undefined when it is not JSON. */
function parseJson(text: string): object | undefined {
  try {
    return JSON.parse(text) as object;
  } catch {
    return undefined;
  }
}
