import { BerthError } from '../../protocol/errors/index.js';
import { loadedOpenaiSdk } from '../models/openai-sdk.js';

export interface ModelCallTarget {
  readonly serviceId: string;
  readonly model: string;
  readonly baseUrl: string;
}

/**
 * Any failure of a model request as `model_error` (the session turns it into
 * `turn_error` with errorKind `model_stream_interrupted`). An HTTP error keeps
 * the `openai` package's "<status> <server message>" text, which is what qwen
 * serve shows clients too (reference i-model-errors), and its status in details.
 */
/** The innermost cause's message: undici wraps the useful part ("connect ECONNREFUSED …") in "fetch failed". */
function rootCause(err: unknown): string | undefined {
  let e: unknown = err instanceof Error ? err.cause : undefined;
  let message: string | undefined;
  for (let depth = 0; e instanceof Error && depth < 5; depth++, e = e.cause) message = e.message;
  return message;
}

export function modelError(err: unknown, target: ModelCallTarget): BerthError {
  const details: Record<string, unknown> = { modelServiceId: target.serviceId, model: target.model };
  if (err instanceof BerthError) return err;
  // Only a loaded `openai` package can have thrown one of its own errors.
  const sdk = loadedOpenaiSdk();
  if (sdk && err instanceof sdk.APIConnectionTimeoutError) {
    return new BerthError('model_error', `The model service ${target.serviceId} did not answer in time (${target.baseUrl})`, details);
  }
  if (sdk && err instanceof sdk.APIConnectionError) {
    const root = rootCause(err);
    const cause = root ? `: ${root}` : '';
    return new BerthError('model_error', `Could not reach the model service ${target.serviceId} at ${target.baseUrl}${cause}`, details);
  }
  if (sdk && err instanceof sdk.APIError) {
    if (err.status !== undefined) details.status = err.status;
    const body = err.error as { type?: unknown; code?: unknown } | undefined;
    if (typeof body?.type === 'string') details.type = body.type;
    if (typeof body?.code === 'string') details.code = body.code;
    const retryAfterMs = retryAfter(err.headers);
    if (retryAfterMs !== undefined) details.retryAfterMs = retryAfterMs;
    const text = err.status === undefined ? `The model stream reported an error: ${err.message}` : err.message;
    return new BerthError('model_error', text, details);
  }
  // undici reports a connection cut mid-body as a TypeError ("terminated"), with the socket error as cause.
  const message = err instanceof Error ? err.message : String(err);
  const root = rootCause(err);
  const cause = root ? ` (${root})` : '';
  return new BerthError('model_error', `The model stream was interrupted: ${message}${cause}`, details);
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date, in milliseconds from now. */
function retryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
