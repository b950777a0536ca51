import { BerthError, isErrorCode } from '../errors/index.js';
import type { BatchItem, BatchReport } from '../tools/batch.js';
import type { ToolContent, ToolOutcome, ToolResult } from '../tools/types.js';

/**
 * docs/tool-protocol.md (Calls and Results, Batches) ⇄ the tool layer's outcomes. Shared
 * by the daemon and the `berth/app` SDK so both read and write the same shapes.
 */

/** A successful call as the wire carries it (`tool.result` payload minus `toolId`, or a batch item). */
export interface WireSuccess {
  readonly success: true;
  readonly message?: string;
  readonly result?: unknown;
  readonly evidence?: Record<string, unknown>;
}

export interface WireError {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;
}

/** One `tool.batch.result` item. */
export type WireBatchItem = { readonly index: number; readonly callId?: string; readonly toolId?: string } & (
  | WireSuccess
  | { readonly success: false; readonly error: WireError }
);

export interface WireBatchReport {
  readonly success: boolean;
  readonly completed: number;
  readonly requested: number;
  readonly stoppedEarly: boolean;
  readonly results: readonly WireBatchItem[];
}

/**
 * What an application's success becomes for agents: `value` is
 * `{result, message?, evidence?}`; a screenshot (`{mimeType, data}` base64)
 * becomes an image block the model sees, its bytes left out of `value`.
 */
export function toolResultOf(reply: WireSuccess): ToolResult {
  const { evidence } = reply;
  const screenshot = evidence?.screenshot as { mimeType?: unknown; data?: unknown } | undefined;
  const image =
    screenshot && typeof screenshot.data === 'string' && typeof screenshot.mimeType === 'string'
      ? { type: 'image' as const, data: screenshot.data, mimeType: screenshot.mimeType }
      : undefined;
  const shownEvidence =
    evidence && image ? { ...evidence, screenshot: { mimeType: image.mimeType, attached: true } } : evidence;
  const value = {
    result: reply.result ?? null,
    ...(reply.message !== undefined ? { message: reply.message } : {}),
    ...(shownEvidence !== undefined ? { evidence: shownEvidence } : {}),
  };
  if (!image) return { value };
  const content: ToolContent[] = [{ type: 'text', text: JSON.stringify(value) }, image];
  return { value, content };
}

export function outcomeOf(item: WireSuccess | { readonly success: false; readonly error: WireError }): ToolOutcome {
  if (item.success) return { ok: true, result: toolResultOf(item) };
  return { ok: false, error: { ...item.error } };
}

export function batchReportOf(wire: WireBatchReport, toolIds: readonly string[]): BatchReport {
  return {
    success: wire.success,
    completed: wire.completed,
    requested: wire.requested,
    stoppedEarly: wire.stoppedEarly,
    results: wire.results.map(
      (item): BatchItem => ({
        index: item.index,
        ...(item.callId !== undefined ? { callId: item.callId } : {}),
        toolId: item.toolId ?? toolIds[item.index] ?? '',
        outcome: outcomeOf(item),
      }),
    ),
  };
}

/**
 * An application's `tool.error` as the executor reports it: a code from our
 * catalogue keeps its meaning; any other code is the application's own and
 * travels as `tool_failed` with `details.applicationCode`, so agents still
 * see the stable code the application chose.
 */
export function applicationError(error: WireError): BerthError {
  const details = { ...(error.details ?? {}) };
  if (isErrorCode(error.code)) return new BerthError(error.code, error.message, details);
  return new BerthError('tool_failed', error.message, { ...details, applicationCode: error.code, retryable: error.retryable });
}
