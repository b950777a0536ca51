import { BerthError } from '../../protocol/errors/index.js';
import { MODEL_RETRY_ATTEMPTS, MODEL_RETRY_BASE_MS, MODEL_RETRY_MAX_DELAY_MS } from '../models/limits.js';
import { callModel, type ModelAnswer, type ModelCall } from './model-call.js';

export interface RetryPolicy {
  readonly attempts: number;
  readonly baseMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: MODEL_RETRY_ATTEMPTS,
  baseMs: MODEL_RETRY_BASE_MS,
  maxDelayMs: MODEL_RETRY_MAX_DELAY_MS,
};

/**
 * How long to wait before retry `retry` (1-based) after `err`, or null when it is not retried:
 * only a 429 or 5xx answer, which arrives before any chunk (so nothing was shown twice), and
 * only while a `Retry-After` stays within the bound.
 */
export function retryDelay(err: unknown, retry: number, policy: RetryPolicy): number | null {
  if (!(err instanceof BerthError) || err.code !== 'model_error' || retry > policy.attempts) return null;
  const status = err.details.status;
  if (typeof status !== 'number' || (status !== 429 && status < 500)) return null;
  const asked = err.details.retryAfterMs;
  const delay = typeof asked === 'number' ? asked : policy.baseMs * 2 ** (retry - 1);
  return delay <= policy.maxDelayMs ? delay : null;
}

/** Resolves after `ms`, or at once (false) when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One model request with bounded retries (docs/client-api.md, usage and retries): a rate limit
 * or server error is retried with backoff honouring `Retry-After`, and each retry is announced
 * on the stream as a `model_retry` session update (attempt, delay, the model's status and message).
 */
export async function callModelWithRetry(call: ModelCall, policy: RetryPolicy = DEFAULT_RETRY_POLICY): Promise<ModelAnswer> {
  for (let retry = 1; ; retry++) {
    try {
      return await callModel(call);
    } catch (err) {
      const delayMs = retryDelay(err, retry, policy);
      if (delayMs === null) throw err;
      const e = err as BerthError;
      call.emit({
        sessionUpdate: 'model_retry',
        attempt: retry,
        maxAttempts: policy.attempts,
        delayMs,
        status: e.details.status,
        message: e.message,
      });
      if (!(await pause(delayMs, call.signal))) {
        return { text: '', toolCalls: [], finishReason: null, aborted: true };
      }
    }
  }
}
