import { MAX_JSON_DEPTH } from '../limits.js';
import { BerthError, isErrorCode } from '../errors/index.js';
import { exceedsJsonDepth } from '../json-depth.js';
import type { ToolContent, ToolOutcome, ToolResult } from '../tools/types.js';

/**
 * The `result` JSON text of docs/gateway.md: "a tool result or an error object with
 * code, message, retryable". A success is the tool's value; when the tool also
 * rendered model-facing blocks (`workspace_image`'s picture) they travel in the
 * value's `contentBlocks` member, so nothing the agent would see locally is lost
 * on the way. An error is exactly `{code, message, retryable}` plus optional
 * `details` — a shape no workspace tool's value has.
 */

const CONTENT_KEY = 'contentBlocks';
const ERROR_KEYS = new Set(['code', 'message', 'retryable', 'details']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A: the outcome of one call as the `result` text. */
export function encodeResult(outcome: ToolOutcome): string {
  if (!outcome.ok) {
    const { code, message, retryable, details } = outcome.error;
    return JSON.stringify({ code, message, retryable, ...(details ? { details } : {}) });
  }
  const { value, content } = outcome.result;
  if (content && content.length > 0 && isObject(value)) return JSON.stringify({ ...value, [CONTENT_KEY]: content });
  return JSON.stringify(value ?? null);
}

/** Whether a parsed result is the error object of docs/gateway.md. */
function isErrorObject(v: unknown): v is { code: string; message: string; retryable: boolean; details?: Record<string, unknown> } {
  return (
    isObject(v) &&
    typeof v.code === 'string' &&
    typeof v.message === 'string' &&
    typeof v.retryable === 'boolean' &&
    (v.details === undefined || isObject(v.details)) &&
    Object.keys(v).every((k) => ERROR_KEYS.has(k))
  );
}

function isContentBlock(v: unknown): v is ToolContent {
  if (!isObject(v)) return false;
  if (v.type === 'text') return typeof v.text === 'string';
  if (v.type === 'image') return typeof v.data === 'string' && typeof v.mimeType === 'string';
  return false;
}

/**
 * B: what the agent gets from a `result` text — the tool result, or the
 * owner's refusal as a BerthError (thrown). An error code this daemon does not
 * know keeps its text in `details.remoteCode` under `tool_failed`.
 */
export function decodeResult(text: string): ToolResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BerthError('protocol_error', 'The owner answered with a result that is not JSON text');
  }
  // A result nested thousands deep would overflow the stack of whatever walks it
  // next (the transcript, the model request) and end the turn; it is the tool's error instead.
  if (exceedsJsonDepth(parsed, MAX_JSON_DEPTH)) {
    throw new BerthError('nesting_too_deep', `The owner's result nests deeper than ${MAX_JSON_DEPTH} levels`, {
      limit: MAX_JSON_DEPTH,
    });
  }
  if (isErrorObject(parsed)) {
    const details = { ...(parsed.details ?? {}) };
    if (isErrorCode(parsed.code)) throw new BerthError(parsed.code, parsed.message, details);
    throw new BerthError('tool_failed', parsed.message, { ...details, remoteCode: parsed.code });
  }
  if (isObject(parsed) && Array.isArray(parsed[CONTENT_KEY]) && (parsed[CONTENT_KEY] as unknown[]).every(isContentBlock)) {
    const { [CONTENT_KEY]: content, ...value } = parsed;
    return { value, content: content as ToolContent[] };
  }
  return { value: parsed };
}
