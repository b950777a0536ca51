import { BerthError } from '../../protocol/errors/index.js';
import { isSessionId } from '../../sessions/ids.js';
import type { ToolService } from '../../tools/service.js';
import type { Policy, ToolOutcome } from '../../tools/types.js';
import { encodeFrame, type CallFrame } from '../../protocol/gateway/frames.js';
import { encodeResult } from '../../protocol/gateway/result-text.js';
import type { OwnerApproval } from './approval.js';
import type { OwnerPin } from './pin.js';
import { DeferredReports } from './deferred-reports.js';
import { SessionToolSets } from './session-tool-sets.js';

/** What happened to one call, for the owner's status line. */
export interface CallReport {
  readonly callId: string;
  readonly sessionId: string;
  readonly tool: string;
  /** `ok`, `replayed` (a stored result sent again), or the error code. */
  readonly outcome: string;
}

export interface OwnerCallHandlerDeps {
  readonly pin: OwnerPin;
  readonly tools: ToolService;
  /** `--max-policy`: the owner's own guard. */
  readonly maxPolicy: Policy;
  readonly approval: OwnerApproval;
  readonly maxFrameBytes: number;
  /** The status of calls that settled, in the order they settled, several at once (deferred-reports.ts). */
  readonly report: (reports: readonly CallReport[]) => void;
}

/**
 * A's answer to one `call` frame (docs/gateway.md constraints): the workspace, the
 * session, the intention, then — in the tool layer's executor — the tool name,
 * the argument schema, the owner's guard, the receipt (a repeated id gets the
 * stored result, an interrupted one `uncertain_effect`) and the owner's
 * approval, before anything runs. Every refusal is an error result with a
 * stable code; the handler never throws.
 *
 * Receipts live in `gateway:<workspaceId>:<sessionId>`: a call id answers only
 * in the session it was made in. Commands started by `workspace_exec` belong to
 * the session too (`ctx.sessionId`), so one session cannot poll another's.
 */
export class OwnerCallHandler {
  private readonly reports: DeferredReports;
  private readonly toolSets: SessionToolSets;

  constructor(private readonly deps: OwnerCallHandlerDeps) {
    this.reports = new DeferredReports(deps.report);
    this.toolSets = new SessionToolSets(deps.tools);
  }

  /** The `result` frame for one call, as the UTF-8 bytes of its text. */
  async handle(frame: CallFrame, signal: AbortSignal): Promise<Buffer> {
    const outcome = await this.outcomeOf(frame, signal);
    this.reports.add({
      callId: frame.id,
      sessionId: frame.sessionId,
      tool: frame.tool,
      outcome: outcome.ok ? (outcome.replayed ? 'replayed' : 'ok') : outcome.error.code,
    });
    return this.resultFrame(frame, outcome);
  }

  /** Hands over the status of every settled call not reported yet, now. */
  flushReports(): void {
    this.reports.flush();
  }

  /** The result frame (UTF-8 bytes of its text) for a call refused before it could be read whole. */
  refusal(callId: string, sessionId: string, error: BerthError): Buffer {
    this.reports.add({ callId, sessionId, tool: '?', outcome: error.code });
    return this.resultFrame({ id: callId, sessionId }, { ok: false, error: error.toFrameError() });
  }

  private async outcomeOf(frame: CallFrame, signal: AbortSignal): Promise<ToolOutcome> {
    const { pin } = this.deps;
    const refuse = (error: BerthError): ToolOutcome => ({ ok: false, error: error.toFrameError() });
    if (frame.workspaceId !== pin.workspace.id) {
      return refuse(new BerthError('workspace_mismatch', `This owner serves workspace ${pin.workspace.id}, not ${frame.workspaceId}`));
    }
    if (!isSessionId(frame.sessionId)) {
      return refuse(new BerthError('invalid_session_id', 'A call names its session by an RFC 4122 UUID'));
    }
    if (frame.intention !== pin.intention) {
      return refuse(new BerthError('intention_mismatch', 'The call does not carry the launch intention this owner pinned'));
    }
    let args: unknown;
    try {
      args = JSON.parse(frame.args);
    } catch {
      return refuse(new BerthError('invalid_arguments', `The arguments of ${frame.tool} are not JSON text`));
    }
    const toolSet = this.toolSets.forCall({
      workspace: pin.workspace,
      sessionId: frame.sessionId,
      namespace: `gateway:${pin.workspace.id}:${frame.sessionId}`,
      maxPolicy: this.deps.maxPolicy,
      permission: this.deps.approval.permission,
      ask: this.deps.approval.ask,
    });
    return toolSet.call({ callId: frame.id, name: frame.tool, args }, signal);
  }

  /**
   * Encoded once, to the bytes that are sent: the bytes measured against the frame limit are the
   * frame. Bytes rather than text, because the socket sends bytes anyway: handed text, the
   * WebSocket would measure it again, copy it into a buffer, mask that in place and write the
   * header and the payload as two chunks; handed bytes, it masks them straight into one.
   */
  private resultFrame(call: Pick<CallFrame, 'id' | 'sessionId'>, outcome: ToolOutcome): Buffer {
    const bytes = Buffer.from(encodeFrame({ type: 'result', id: call.id, sessionId: call.sessionId, result: encodeResult(outcome) }));
    if (bytes.length <= this.deps.maxFrameBytes) return bytes;
    // The receipt keeps the whole outcome; the channel carries a refusal a frame can hold.
    const tooLarge = new BerthError('frame_too_large', `The result of this call does not fit one ${this.deps.maxFrameBytes}-byte frame`, {
      limit: this.deps.maxFrameBytes,
    });
    return Buffer.from(encodeFrame({ type: 'result', id: call.id, sessionId: call.sessionId, result: encodeResult({ ok: false, error: tooLarge.toFrameError() }) }));
  }
}
