import { BerthError } from '../protocol/errors/index.js';
import type { EvidenceRequest } from '../protocol/toolproto/payloads.js';
import { validateArguments, validateResult } from '../protocol/tools/arguments.js';
import { FLATTENED_STRING } from '../protocol/tools/types.js';
import { availabilityOf, wireRuntime } from '../protocol/tools/definitions.js';
import { guardPermits, type ToolGuard } from '../protocol/tools/guard.js';
import type { WireError, WireSuccess } from '../protocol/toolproto/outcomes.js';
import { toBase64 } from './codec.js';
import { AppToolError, type AppTools } from './tools.js';

/** A screenshot as an evidence hook returns it; bytes are sent base64. */
export interface Screenshot {
  readonly mimeType: string;
  readonly data: string | Uint8Array;
}

/**
 * The application's evidence hooks (docs/tool-protocol.md `after`): called after a
 * successful call when the host asks, with the call's tool-specific
 * `visualTreeArguments` / `screenshotArguments`.
 */
export interface EvidenceHooks {
  visualTree?(args: Record<string, unknown>): unknown | Promise<unknown>;
  screenshot?(args: Record<string, unknown>): Screenshot | Promise<Screenshot>;
}

/** A handler's answer with a message next to the result (docs/tool-protocol.md `tool.result` `message`). */
export class ToolReply {
  constructor(
    readonly result: unknown,
    readonly message?: string,
  ) {}
}

export interface CallRequest {
  readonly toolId: string;
  readonly arguments: unknown;
  readonly after?: EvidenceRequest;
  readonly callId: string;
  readonly sessionId?: string;
}

/**
 * Runs one call the host sent, in the tool protocol's order: the tool must exist and
 * be within the guard, the arguments must match its schema, and it must be
 * available — evaluated again now, right before it runs. Every failure is a
 * `tool.error` body with a stable code; nothing throws.
 */
export async function runCall(tools: AppTools, guard: ToolGuard, request: CallRequest, hooks: EvidenceHooks): Promise<WireSuccess | WireError> {
  try {
    const tool = tools.get(request.toolId);
    if (!tool) throw new BerthError('unknown_tool', `No tool ${request.toolId} is registered`, { tool: request.toolId });
    if (!guardPermits(guard, tool)) {
      throw new BerthError('policy_denied', `Tool ${tool.name} has policy ${tool.policy}; this host may run at most ${guard.maxPolicy}`, {
        tool: tool.name,
        policy: tool.policy,
        maxPolicy: guard.maxPolicy,
      });
    }
    validateArguments(tool, request.arguments);
    const availability = availabilityOf(tool);
    if (!availability.available) {
      throw new BerthError('tool_unavailable', availability.reason ?? `${tool.name} is not available now`, {
        tool: tool.name,
        runtime: wireRuntime(availability),
      });
    }
    // A flattened-string tool receives the checked arguments object as its compact JSON text (docs/tool-protocol.md).
    const args = tool.argumentEncoding === FLATTENED_STRING ? JSON.stringify(request.arguments) : request.arguments;
    const answer = await tool.handler(args as never, {
      callId: request.callId,
      ...(request.sessionId !== undefined ? { sessionId: request.sessionId } : {}),
    });
    const reply = answer instanceof ToolReply ? answer : new ToolReply(answer);
    validateResult(tool, reply.result ?? null);
    const evidence = request.after ? await collectEvidence(request.after, hooks) : undefined;
    return {
      success: true,
      ...(reply.message !== undefined ? { message: reply.message } : {}),
      result: reply.result ?? null,
      ...(evidence ? { evidence } : {}),
    };
  } catch (err) {
    return wireError(err);
  }
}

export function wireError(err: unknown): WireError {
  if (err instanceof BerthError) return err.toFrameError();
  if (err instanceof AppToolError) {
    return {
      code: err.code,
      message: err.message,
      retryable: err.options.retryable ?? false,
      ...(err.options.details ? { details: err.options.details } : {}),
    };
  }
  return new BerthError('tool_failed', err instanceof Error ? err.message : String(err)).toFrameError();
}

async function collectEvidence(after: EvidenceRequest, hooks: EvidenceHooks): Promise<Record<string, unknown>> {
  if (after.delayMilliseconds) await new Promise((resolve) => setTimeout(resolve, after.delayMilliseconds));
  const evidence: Record<string, unknown> = {};
  for (const kind of after.include) {
    try {
      if (kind === 'visualTree') {
        if (!hooks.visualTree) throw new Error('This application has no visual tree hook');
        evidence.visualTree = await hooks.visualTree(after.visualTreeArguments ?? {});
      } else {
        if (!hooks.screenshot) throw new Error('This application has no screenshot hook');
        const shot = await hooks.screenshot(after.screenshotArguments ?? {});
        evidence.screenshot = { mimeType: shot.mimeType, data: typeof shot.data === 'string' ? shot.data : toBase64(shot.data) };
      }
    } catch (err) {
      // One missing capture does not undo a call that already ran: it is reported in its place.
      evidence[kind] = { error: { code: 'evidence_unavailable', message: err instanceof Error ? err.message : String(err) } };
    }
  }
  return evidence;
}
