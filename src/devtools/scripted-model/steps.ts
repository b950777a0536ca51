/**
 * What the scripted model can be told to answer. Every step is plain JSON so
 * the same script travels in-process (`model.enqueue`) and over HTTP
 * (`POST /__script`) for spawned daemons and benchmarks.
 */

/** One tool call the model "decides" to make; its arguments stream in fragments. */
export interface ScriptedToolCall {
  /** Defaults to `call_<n>` (n counts calls served by this server). */
  readonly id?: string;
  readonly name: string;
  /**
   * An object is sent as its JSON text; a string is sent verbatim (so it may be invalid JSON on purpose).
   * In an object, a value `{ "$fromLastToolResult": "field" }` is replaced by that field of the last
   * tool result the request carries (read as JSON), so a script can use an id the daemon made up —
   * `workspace_poll` with the `commandId` its `workspace_exec` returned.
   */
  readonly arguments: string | Record<string, unknown>;
  /** How many chunks the argument text is split into (default 2). */
  readonly fragments?: number;
}

/** OpenAI usage numbers; any left out are estimated deterministically from the text sizes. */
export interface ScriptedUsage {
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly reasoningTokens?: number;
  readonly cachedTokens?: number;
}

/** A normal answer: reasoning, then text, then tool calls, then the finish chunk (and usage). */
export interface ReplyStep {
  readonly kind: 'reply';
  /** A string is cut into `chunkChars`-sized deltas; an array gives the deltas exactly. */
  readonly reasoning?: string | readonly string[];
  readonly text?: string | readonly string[];
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Default: `tool_calls` when there are tool calls, else `stop`. */
  readonly finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  /**
   * `true` or numbers: always send a usage chunk. `false`: never. Absent: send
   * one when the request asked for it (`stream_options.include_usage`), as OpenAI does.
   */
  readonly usage?: boolean | ScriptedUsage;
  /** Delta size for string text/reasoning (default 16 characters). */
  readonly chunkChars?: number;
  /** Pause between streamed chunks; 0 (the default) writes the whole answer at once. */
  readonly delayMs?: number;
  /**
   * Serve this step again for as long as the request's last tool result has
   * these field values (read as JSON), and drop it once it has not — e.g.
   * `workspace_poll` while `{ running: true }`, so a script waits for a
   * command without any clock.
   */
  readonly repeatWhileLastToolResult?: Record<string, unknown>;
}

/** An HTTP error with an OpenAI-style body `{error:{message,type,param,code}}`. */
export interface ErrorStep {
  readonly kind: 'error';
  readonly status: number;
  readonly message?: string;
  readonly type?: string;
  readonly code?: string | null;
  /** Sent as a `retry-after` header (seconds), e.g. with 429. */
  readonly retryAfterSeconds?: number;
}

/** Streams the given text deltas, then destroys the socket without finishing the response. */
export interface DisconnectStep {
  readonly kind: 'disconnect';
  readonly text?: string | readonly string[];
}

/** Sends the response head (and any text deltas), then waits until the client goes away. */
export interface HangStep {
  readonly kind: 'hang';
  readonly text?: string | readonly string[];
}

export type ScriptStep = ReplyStep | ErrorStep | DisconnectStep | HangStep;

/** A declarative rule for HTTP control: when the last user message contains `lastUserContains`, answer `step`. */
export interface MatchRule {
  readonly lastUserContains: string;
  readonly step: ScriptStep;
}

export const DEFAULT_REPLY: ReplyStep = { kind: 'reply', text: 'OK.' };
/** Default delta size for string text and reasoning. */
export const DEFAULT_CHUNK_CHARS = 16;
/** Default number of fragments a tool call's argument text is split into. */
export const DEFAULT_ARGUMENT_FRAGMENTS = 2;
/** A scripted pause longer than this is refused: the server is for tests and benchmarks, not soak runs. */
export const MAX_STEP_DELAY_MS = 60_000;

export class ScriptError extends Error {
  override name = 'ScriptError';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkDeltas(where: string, v: unknown): void {
  if (v === undefined || typeof v === 'string') return;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw new ScriptError(`${where} must be a string or an array of strings`);
  }
}

function checkCount(where: string, v: unknown, min: number, max: number): void {
  if (v === undefined) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ScriptError(`${where} must be an integer from ${min} to ${max}`);
  }
}

/**
 * Checks a step that arrived as JSON; a script is taken whole or refused whole,
 * so a typo never leaves half a script queued.
 */
export function parseStep(value: unknown, where = 'step'): ScriptStep {
  if (!isObject(value)) throw new ScriptError(`${where} must be an object`);
  switch (value.kind) {
    case 'reply': {
      checkDeltas(`${where}.text`, value.text);
      checkDeltas(`${where}.reasoning`, value.reasoning);
      checkCount(`${where}.chunkChars`, value.chunkChars, 1, 1_000_000);
      checkCount(`${where}.delayMs`, value.delayMs, 0, MAX_STEP_DELAY_MS);
      if (value.finishReason !== undefined && !['stop', 'length', 'tool_calls', 'content_filter'].includes(value.finishReason as string)) {
        throw new ScriptError(`${where}.finishReason must be stop, length, tool_calls or content_filter`);
      }
      if (value.repeatWhileLastToolResult !== undefined && !isObject(value.repeatWhileLastToolResult)) {
        throw new ScriptError(`${where}.repeatWhileLastToolResult must be an object of field values`);
      }
      if (value.usage !== undefined && typeof value.usage !== 'boolean' && !isObject(value.usage)) {
        throw new ScriptError(`${where}.usage must be a boolean or an object of token counts`);
      }
      if (value.toolCalls !== undefined) {
        if (!Array.isArray(value.toolCalls)) throw new ScriptError(`${where}.toolCalls must be an array`);
        value.toolCalls.forEach((c: unknown, i: number) => {
          const at = `${where}.toolCalls[${i}]`;
          if (!isObject(c) || typeof c.name !== 'string' || c.name === '') throw new ScriptError(`${at}.name must be a non-empty string`);
          if (typeof c.arguments !== 'string' && !isObject(c.arguments)) throw new ScriptError(`${at}.arguments must be a string or an object`);
          if (c.id !== undefined && typeof c.id !== 'string') throw new ScriptError(`${at}.id must be a string`);
          checkCount(`${at}.fragments`, c.fragments, 1, 10_000);
        });
      }
      return value as unknown as ReplyStep;
    }
    case 'error':
      checkCount(`${where}.status`, value.status, 400, 599);
      if (value.status === undefined) throw new ScriptError(`${where}.status is required`);
      if (value.message !== undefined && typeof value.message !== 'string') throw new ScriptError(`${where}.message must be a string`);
      checkCount(`${where}.retryAfterSeconds`, value.retryAfterSeconds, 0, 3600);
      return value as unknown as ErrorStep;
    case 'disconnect':
    case 'hang':
      checkDeltas(`${where}.text`, value.text);
      return value as unknown as DisconnectStep | HangStep;
    default:
      throw new ScriptError(`${where}.kind must be reply, error, disconnect or hang`);
  }
}

export function parseRule(value: unknown, where = 'rule'): MatchRule {
  if (!isObject(value) || typeof value.lastUserContains !== 'string') {
    throw new ScriptError(`${where}.lastUserContains must be a string`);
  }
  return { lastUserContains: value.lastUserContains, step: parseStep(value.step, `${where}.step`) };
}

/** Cuts text into deltas: arrays are kept as given, strings are cut every `size` characters. */
export function deltas(text: string | readonly string[] | undefined, size: number): readonly string[] {
  if (text === undefined) return [];
  if (typeof text !== 'string') return text;
  if (text.length <= size) return text === '' ? [] : [text];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Splits a string into `n` nearly equal pieces (the last may be empty only when the text is shorter than n). */
export function fragments(text: string, n: number): string[] {
  if (n <= 1 || text.length === 0) return [text];
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
