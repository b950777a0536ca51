import { MAX_BATCH_CALLS, MAX_CALL_ID_CHARS, MAX_TOOL_NAME_CHARS } from '../limits.js';
import { BerthError } from '../errors/index.js';
import { assertMatches } from './arguments.js';
import type { ToolOutcome } from './types.js';

/** One call of a `tool.batch` (docs/tool-protocol.md, Batches). */
export interface BatchCall {
  readonly callId?: string;
  readonly toolId: string;
  /** Defaults to `{}`; anything but an object is refused by the executor as `invalid_arguments`. */
  readonly arguments?: unknown;
}

export interface BatchRequest {
  readonly calls: readonly BatchCall[];
  readonly continueOnError?: boolean;
}

export interface BatchItem {
  /** Zero-based position in the request. */
  readonly index: number;
  readonly callId?: string;
  readonly toolId: string;
  readonly outcome: ToolOutcome;
}

/** The `tool.batch.result` facts (docs/tool-protocol.md): results in input order, and how far the batch got. */
export interface BatchReport {
  readonly success: boolean;
  readonly completed: number;
  readonly requested: number;
  readonly stoppedEarly: boolean;
  readonly results: readonly BatchItem[];
}

const BATCH_SCHEMA = {
  type: 'object',
  required: ['calls'],
  properties: {
    continueOnError: { type: 'boolean' },
    calls: {
      type: 'array',
      items: {
        type: 'object',
        required: ['toolId'],
        properties: {
          callId: { type: 'string', minLength: 1, maxLength: MAX_CALL_ID_CHARS },
          toolId: { type: 'string', minLength: 1, maxLength: MAX_TOOL_NAME_CHARS },
        },
      },
    },
  },
};

/**
 * Reads an untrusted `tool.batch` payload, accepted whole or refused whole:
 * a call count outside 1–32 is `batch_size`; any other shape fault is
 * `protocol_error` and no call of the batch runs.
 */
export function parseBatch(payload: unknown): BatchRequest {
  const calls = (payload as { calls?: unknown } | null)?.calls;
  if (Array.isArray(calls)) assertBatchSize(calls.length);
  assertMatches(BATCH_SCHEMA, payload, 'protocol_error', 'the tool.batch payload');
  return payload as BatchRequest;
}

export function assertBatchSize(count: number): void {
  if (count >= 1 && count <= MAX_BATCH_CALLS) return;
  throw new BerthError('batch_size', `A batch holds 1 to ${MAX_BATCH_CALLS} calls; this one has ${count}`, {
    requested: count,
    limit: MAX_BATCH_CALLS,
  });
}

/**
 * Runs the calls one after another in input order. The first failed call
 * stops the batch unless `continueOnError`; an aborted signal stops it too.
 * `completed` counts calls that reached an outcome, failed ones included.
 */
export async function runBatch(
  request: BatchRequest,
  runCall: (call: BatchCall, index: number) => Promise<ToolOutcome>,
  signal?: AbortSignal,
): Promise<BatchReport> {
  assertBatchSize(request.calls.length);
  const results: BatchItem[] = [];
  for (const [index, call] of request.calls.entries()) {
    if (signal?.aborted) break;
    const outcome = await runCall(call, index);
    results.push({ index, ...(call.callId !== undefined ? { callId: call.callId } : {}), toolId: call.toolId, outcome });
    if (!outcome.ok && !request.continueOnError) break;
  }
  return {
    success: results.length === request.calls.length && results.every((r) => r.outcome.ok),
    completed: results.length,
    requested: request.calls.length,
    stoppedEarly: results.length < request.calls.length,
    results,
  };
}
