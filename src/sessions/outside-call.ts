import type { DriverToolCall } from '../agents/driver.js';
import type { PublishInput } from '../events/types.js';
import type { ToolOutcome } from '../tools/types.js';
import { callTool, type ToolCallPorts } from './tool-call.js';

/** A caller that speaks for the session outside any turn: an MCP client on the session's tab (src/mcpserve). */
export interface OutsideCaller {
  /** Attribution on the events, when the caller has a client id. */
  readonly clientId?: string;
  /** Aborted when the caller goes away: a pending permission request then resolves as cancelled. */
  readonly signal: AbortSignal;
}

/**
 * A tool call that belongs to no prompt. It takes the path a turn's call takes
 * (src/sessions/tool-call.ts): the session's guard and approval mode, a
 * `permission_request` on its stream when the mode asks, remembered choices,
 * receipts in the session's namespace, and `tool_call` / `tool_call_update`
 * events — without a `promptId`, since no prompt is running it.
 */
export function callFromOutside(
  ports: ToolCallPorts & { readonly sessionId: string; publish(input: PublishInput): void },
  call: DriverToolCall,
  caller: OutsideCaller,
): Promise<ToolOutcome> {
  const { sessionId } = ports;
  const origin = { promptId: undefined, originatorClientId: caller.clientId, signal: caller.signal, withdrawOn: caller.signal };
  return callTool(ports, origin, call, (update) =>
    ports.publish({ type: 'session_update', originatorClientId: caller.clientId, data: { sessionId, update } }),
  );
}
