import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completionBody, errorBody, lastToolResultOf, partialChunks, streamChunks, type ReplyContext } from './completion.js';
import { ScriptState, type ChatRequestView, type RecordedRequest, type ScriptRule } from './script-state.js';
import { parseRule, parseStep, ScriptError, type ReplyStep, type ScriptStep } from './steps.js';

export interface ScriptedModelOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Model ids listed by `GET /v1/models` (default `["scripted-model"]`). */
  readonly models?: readonly string[];
  /** What to answer when the queue is empty and no rule matches (default: `OK.` at once). */
  readonly defaultStep?: ScriptStep;
  /** When set, `/v1` requests without `Authorization: Bearer <apiKey>` get a 401. */
  readonly apiKey?: string;
  /** false: keep no request log (long benchmark runs); `requests` stays empty. Default true. */
  readonly record?: boolean;
}

export interface ScriptedModel {
  /** Base URL for OpenAI clients, ending in `/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every `/v1` request received, oldest first (control routes are not recorded). */
  readonly requests: readonly RecordedRequest[];
  /** Parsed bodies of the chat-completion requests, oldest first. */
  completions(): readonly Record<string, any>[];
  enqueue(...steps: ScriptStep[]): void;
  /** Chooses a reply from the request when the queue is empty; return undefined to fall through. */
  setRule(rule: ScriptRule | null): void;
  setDefault(step: ScriptStep): void;
  setModels(ids: readonly string[]): void;
  /** Empties the queue, rules and records; restores the default reply and model list. */
  reset(): void;
  /** Resolves once `n` requests (optionally only those whose path ends with `pathSuffix`) were received. */
  waitForRequests(n: number, pathSuffix?: string): Promise<readonly RecordedRequest[]>;
  /** Resolves once the client closed the connection of request number `index` (0-based) before its answer ended. */
  waitForClientClose(index: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

/** How long `GET /__requests?min=N` waits for N requests before answering with what it has. */
const CONTROL_WAIT_MS = 10_000;
/** A script sent over HTTP may not exceed this (it is test input, never large). */
const MAX_CONTROL_BODY_BYTES = 16 * 1024 * 1024;

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' };

const sse = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (d: Buffer) => {
      size += d.length;
      if (size > limit) {
        reject(new ScriptError(`request body above ${limit} bytes`));
        req.destroy();
        return;
      }
      parts.push(d);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The project's own OpenAI-compatible model server (node:http, deterministic,
 * no dependencies): every end-to-end test, benchmark and demo talks to it over
 * real HTTP instead of a paid endpoint.
 */
export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const state = new ScriptState(options.defaultStep, options.models, options.record ?? true);
  let completionCount = 0;
  let callCount = 0;

  async function answerChat(req: IncomingMessage, res: ServerResponse, rec: RecordedRequest, raw: string): Promise<void> {
    const body = rec.body as Record<string, any> | null;
    if (body === null || typeof body !== 'object') {
      sendJson(res, 400, errorBody(400, 'request body must be a JSON object'));
      return;
    }
    const step = state.next(body, rec);
    completionCount += 1;
    const ctx: ReplyContext = {
      completionId: `chatcmpl-scripted-${completionCount}`,
      model: typeof body.model === 'string' ? body.model : 'scripted-model',
      requestBytes: raw.length,
      wantsUsage: body.stream_options?.include_usage === true,
      nextCallId: () => `call_${++callCount}`,
      lastToolResult: lastToolResultOf(body),
    };
    const stream = body.stream === true;
    switch (step.kind) {
      case 'error': {
        const headers: Record<string, string> = step.retryAfterSeconds !== undefined ? { 'retry-after': String(step.retryAfterSeconds) } : {};
        sendJson(res, step.status, errorBody(step.status, step.message, step.type, step.code), headers);
        return;
      }
      case 'disconnect': {
        if (!stream) {
          state.markServerDisconnected(rec);
          res.socket?.destroy();
          return;
        }
        state.markServerDisconnected(rec);
        res.writeHead(200, SSE_HEADERS);
        res.write(partialChunks(step.text, ctx).map(sse).join(''), () => res.socket?.destroy());
        return;
      }
      case 'hang': {
        if (stream) {
          res.writeHead(200, SSE_HEADERS);
          const partial = partialChunks(step.text, ctx);
          if (partial.length > 0) res.write(partial.map(sse).join(''));
          else res.flushHeaders();
        }
        // The answer never comes; the close handler notes when the client gives up.
        return;
      }
      case 'reply':
        if (!stream) sendJson(res, 200, completionBody(step, ctx));
        else await streamReply(res, step, ctx);
        return;
    }
  }

  async function streamReply(res: ServerResponse, step: ReplyStep, ctx: ReplyContext): Promise<void> {
    const chunks = streamChunks(step, ctx);
    const pause = step.delayMs ?? 0;
    if (pause === 0) {
      // The instant path: one write for the whole answer, so benchmarks measure the daemon, not this server.
      res.writeHead(200, SSE_HEADERS);
      res.end(chunks.map(sse).join('') + 'data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, SSE_HEADERS);
    for (let i = 0; i < chunks.length; i++) {
      if (i > 0) await delay(pause);
      if (res.destroyed) return;
      res.write(sse(chunks[i]));
    }
    res.end('data: [DONE]\n\n');
  }

  async function handleModelApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const raw = req.method === 'POST' ? await readBody(req, MAX_CONTROL_BODY_BYTES) : '';
    let body: unknown = null;
    try {
      body = raw === '' ? null : JSON.parse(raw);
    } catch {
      body = raw;
    }
    const rec = state.record(req.method ?? 'GET', path, req.headers, body);
    res.on('close', () => {
      if (!res.writableFinished && !rec.serverDisconnected) state.markClientClosed(rec);
    });
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendJson(res, 401, errorBody(401, 'Incorrect API key provided'));
      return;
    }
    if (req.method === 'GET' && path.endsWith('/models')) {
      sendJson(res, 200, { object: 'list', data: state.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'berth-scripted' })) });
      return;
    }
    if (req.method === 'POST' && path.endsWith('/chat/completions')) {
      if (typeof body === 'string') {
        sendJson(res, 400, errorBody(400, 'request body is not valid JSON'));
        return;
      }
      return answerChat(req, res, rec, raw);
    }
    sendJson(res, 404, errorBody(404, `no route ${req.method} ${path}`, 'invalid_request_error', 'not_found'));
  }

  async function handleControl(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const route = `${req.method} ${url.pathname}`;
    if (route === 'POST /__script') {
      const input = JSON.parse((await readBody(req, MAX_CONTROL_BODY_BYTES)) || '{}') as Record<string, unknown>;
      const steps = Array.isArray(input.steps) ? input.steps.map((s, i) => parseStep(s, `steps[${i}]`)) : [];
      const rules = Array.isArray(input.rules) ? input.rules.map((r, i) => parseRule(r, `rules[${i}]`)) : undefined;
      const fallback = input.default === undefined ? undefined : parseStep(input.default, 'default');
      const models = input.models;
      if (models !== undefined && (!Array.isArray(models) || models.some((m) => typeof m !== 'string'))) {
        throw new ScriptError('models must be an array of strings');
      }
      // Everything parsed: only now change the script (accepted whole or refused whole).
      state.enqueue(steps);
      if (rules !== undefined) state.setMatchRules(rules);
      if (fallback !== undefined) state.setDefault(fallback);
      if (models !== undefined) state.setModels(models as string[]);
      sendJson(res, 200, { queued: state.queued() });
      return;
    }
    if (route === 'GET /__requests') {
      const min = Number(url.searchParams.get('min') ?? 0);
      const suffix = url.searchParams.get('path') ?? undefined;
      const timer = AbortSignal.timeout(CONTROL_WAIT_MS);
      const requests = await state.waitForRequests(min, suffix, timer).catch(() => state.matching(suffix));
      sendJson(res, 200, { count: requests.length, requests });
      return;
    }
    if (route === 'POST /__reset') {
      state.reset();
      sendJson(res, 200, { reset: true });
      return;
    }
    sendJson(res, 404, { error: { message: `no control route ${route}` } });
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://scripted.invalid');
    const work = url.pathname.startsWith('/__') ? handleControl(req, res, url) : handleModelApi(req, res, url.pathname);
    work.catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const status = err instanceof ScriptError || err instanceof SyntaxError ? 400 : 500;
      sendJson(res, status, errorBody(status, err instanceof Error ? err.message : String(err)));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`;

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    get requests() {
      return state.requests;
    },
    completions: () => state.matching('/chat/completions').map((r) => r.body as Record<string, any>),
    enqueue: (...steps) => state.enqueue(steps),
    setRule: (rule) => state.setRule(rule),
    setDefault: (step) => state.setDefault(step),
    setModels: (ids) => state.setModels(ids),
    reset: () => state.reset(),
    waitForRequests: (n, pathSuffix) => state.waitForRequests(n, pathSuffix),
    waitForClientClose: (index) => state.waitForClientClose(index),
    close() {
      closing ??= new Promise<void>((resolve) => {
        state.dispose();
        server.close(() => resolve());
        // Hanging answers and idle keep-alive sockets would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

export type { ChatRequestView, RecordedRequest, ScriptRule };
