import type { BatchCall, BatchReport } from '../protocol/tools/batch.js';
import type { EvidenceRequest } from '../protocol/toolproto/payloads.js';
import type { ToolOutcome } from './types.js';

export type { EvidenceRequest } from '../protocol/toolproto/payloads.js';

export interface ApplicationCallOptions {
  /** The conversation the call serves; travels as the envelope `sessionId`. */
  readonly sessionId?: string | null;
  readonly signal?: AbortSignal;
  readonly after?: EvidenceRequest;
}

export interface ApplicationBatchCall extends BatchCall {
  readonly after?: EvidenceRequest;
}

export interface ApplicationBatchRequest {
  readonly calls: readonly ApplicationBatchCall[];
  readonly continueOnError?: boolean;
}

/**
 * The daemon's direct line to one connected application (docs/tool-protocol.md: the host
 * sends `tool.call` and `tool.batch`). The tool-protocol face implements it
 * and hands it to the registry with `publish`.
 *
 * It is the raw protocol: no argument validation, guard, permission or
 * receipt happens here — agents never hold a link; they reach application
 * tools through `workspace_tool` and the executor. In-process callers that
 * already settled their authority (benchmarks, the owner's own tooling) use
 * it, and so do protocol tests.
 */
export interface ApplicationLink {
  /** The application name its token carries. */
  readonly applicationId: string;
  call(toolId: string, args: Record<string, unknown>, options?: ApplicationCallOptions): Promise<ToolOutcome>;
  /** 1 to 32 calls run in order by the application; it stops at the first failure unless `continueOnError`. */
  batch(request: ApplicationBatchRequest, options?: ApplicationCallOptions): Promise<BatchReport>;
}
