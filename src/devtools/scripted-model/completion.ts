import {
  DEFAULT_ARGUMENT_FRAGMENTS,
  DEFAULT_CHUNK_CHARS,
  deltas,
  fragments,
  type ReplyStep,
  type ScriptedUsage,
} from './steps.js';

/** What the reply builders need from a request, read once per request. */
export interface ReplyContext {
  /** `chatcmpl-…` id shared by every chunk of this answer. */
  readonly completionId: string;
  readonly model: string;
  /** Raw request body size, for the deterministic prompt-token estimate. */
  readonly requestBytes: number;
  readonly wantsUsage: boolean;
  /** Gives tool calls without a scripted id a server-unique `call_<n>`. */
  nextCallId(): string;
  /** The last `role: "tool"` message of the request, parsed as JSON (null when there is none or it is not JSON). */
  readonly lastToolResult?: Record<string, unknown> | null;
}

/** The content of the request's last tool message, as a JSON object, if it is one. */
export function lastToolResultOf(body: Record<string, any>): Record<string, unknown> | null {
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  const last = [...messages].reverse().find((m) => m && m.role === 'tool');
  if (!last || typeof last.content !== 'string') return null;
  try {
    const parsed = JSON.parse(last.content);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** Replaces `{ "$fromLastToolResult": "field" }` values with that field of the last tool result. */
function withToolResultFields(args: Record<string, unknown>, result: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    const field = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>).$fromLastToolResult : undefined;
    out[k] = typeof field === 'string' ? (result?.[field] ?? null) : v;
  }
  return out;
}

/**
 * A fixed `created` time keeps every answer byte-identical across runs
 * (the server is deterministic by design).
 */
const CREATED = 1_700_000_000;

/** Roughly four characters a token, as tokenizers average on English text; good enough to be plausible. */
const estimateTokens = (chars: number) => Math.ceil(chars / 4);

interface ResolvedCall {
  readonly id: string;
  readonly name: string;
  readonly args: string;
  readonly pieces: readonly string[];
}

function resolveCalls(step: ReplyStep, ctx: ReplyContext): ResolvedCall[] {
  return (step.toolCalls ?? []).map((c) => {
    const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(withToolResultFields(c.arguments, ctx.lastToolResult));
    return {
      id: c.id ?? ctx.nextCallId(),
      name: c.name,
      args,
      pieces: fragments(args, c.fragments ?? DEFAULT_ARGUMENT_FRAGMENTS),
    };
  });
}

function finishReasonOf(step: ReplyStep, calls: readonly ResolvedCall[]): string {
  return step.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
}

function joined(v: string | readonly string[] | undefined): string {
  return v === undefined ? '' : typeof v === 'string' ? v : v.join('');
}

function usageOf(step: ReplyStep, ctx: ReplyContext, calls: readonly ResolvedCall[]) {
  const given: ScriptedUsage = typeof step.usage === 'object' ? step.usage : {};
  const reasoningChars = joined(step.reasoning).length;
  const outChars = joined(step.text).length + reasoningChars + calls.reduce((n, c) => n + c.name.length + c.args.length, 0);
  const prompt = given.promptTokens ?? estimateTokens(ctx.requestBytes);
  const completion = given.completionTokens ?? estimateTokens(outChars);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: given.cachedTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: given.reasoningTokens ?? estimateTokens(reasoningChars) },
  };
}

function sendsUsage(step: ReplyStep, ctx: ReplyContext): boolean {
  return step.usage === undefined ? ctx.wantsUsage : step.usage !== false;
}

/** One `chat.completion.chunk` object; `choices` empty for the trailing usage chunk. */
function chunk(ctx: ReplyContext, delta: Record<string, unknown> | null, finish: string | null, usage?: unknown) {
  const body: Record<string, unknown> = {
    id: ctx.completionId,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: ctx.model,
    choices: delta === null ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
  if (usage !== undefined) body.usage = usage;
  return body;
}

/** The streamed answer as chunk objects, in order (without the `[DONE]` sentinel). */
export function streamChunks(step: ReplyStep, ctx: ReplyContext): Record<string, unknown>[] {
  const size = step.chunkChars ?? DEFAULT_CHUNK_CHARS;
  const out: Record<string, unknown>[] = [];
  let first = true;
  // The first delta carries the role, as OpenAI's does.
  const withRole = (d: Record<string, unknown>) => {
    if (!first) return d;
    first = false;
    return { role: 'assistant', ...d };
  };
  for (const r of deltas(step.reasoning, size)) out.push(chunk(ctx, withRole({ reasoning_content: r }), null));
  for (const t of deltas(step.text, size)) out.push(chunk(ctx, withRole({ content: t }), null));
  const calls = resolveCalls(step, ctx);
  calls.forEach((call, index) => {
    const [head, ...rest] = call.pieces;
    out.push(
      chunk(ctx, withRole({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: head } }] }), null),
    );
    for (const piece of rest) out.push(chunk(ctx, { tool_calls: [{ index, function: { arguments: piece } }] }, null));
  });
  out.push(chunk(ctx, withRole({}), finishReasonOf(step, calls)));
  if (sendsUsage(step, ctx)) out.push(chunk(ctx, null, null, usageOf(step, ctx, calls)));
  return out;
}

/** Deltas a disconnect or hang step streams before it misbehaves. */
export function partialChunks(text: string | readonly string[] | undefined, ctx: ReplyContext): Record<string, unknown>[] {
  return deltas(text, DEFAULT_CHUNK_CHARS).map((t, i) => chunk(ctx, i === 0 ? { role: 'assistant', content: t } : { content: t }, null));
}

/** The whole answer as one `chat.completion` object (non-streaming requests). */
export function completionBody(step: ReplyStep, ctx: ReplyContext): Record<string, unknown> {
  const calls = resolveCalls(step, ctx);
  const message: Record<string, unknown> = { role: 'assistant', content: step.text === undefined && calls.length > 0 ? null : joined(step.text) };
  if (step.reasoning !== undefined) message.reasoning_content = joined(step.reasoning);
  if (calls.length > 0) {
    message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
  }
  return {
    id: ctx.completionId,
    object: 'chat.completion',
    created: CREATED,
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(step, calls) }],
    usage: usageOf(step, ctx, calls),
  };
}

const ERROR_DEFAULTS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: 'bad request', type: 'invalid_request_error', code: null },
  401: { message: 'invalid api key', type: 'authentication_error', code: 'invalid_api_key' },
  403: { message: 'forbidden', type: 'permission_error', code: null },
  404: { message: 'model not found', type: 'invalid_request_error', code: 'model_not_found' },
  429: { message: 'rate limit exceeded', type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  500: { message: 'internal server error', type: 'server_error', code: null },
};

/** OpenAI's error body shape, which the `openai` package turns into `APIError.message` "<status> <message>". */
export function errorBody(status: number, message?: string, type?: string, code?: string | null) {
  const d = ERROR_DEFAULTS[status] ?? { message: `error ${status}`, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
  return { error: { message: message ?? d.message, type: type ?? d.type, param: null, code: code === undefined ? d.code : code } };
}
