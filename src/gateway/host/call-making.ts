import { encodeFrame, GATEWAY_PROTOCOL } from '../../protocol/gateway/frames.js';
import type { CallSettlement, OutgoingCall } from './outgoing-call.js';

/** What names one call to a workspace owner, whichever node frames it. */
export interface CallFields {
  readonly id: string;
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly tool: string;
  /** The `args` JSON text. */
  readonly args: string;
  readonly effectful: boolean;
}

/** The `call` frame of docs/gateway.md, sent as is on every (re)send. */
export function callFrame(fields: CallFields, intention: string): string {
  const { id, workspaceId, sessionId, tool, args } = fields;
  return encodeFrame({ type: 'call', protocol: GATEWAY_PROTOCOL, id, workspaceId, sessionId, intention, tool, args });
}

/**
 * A call not yet handed to a line, and the promise its caller waits on: settled once, with A's
 * result text or a refusal; an abort of `signal` asks `cancel` to give it up.
 */
export function pendingCall(
  fields: CallFields & { readonly frame: string; readonly tokenId: string | null },
  signal: AbortSignal,
  cancel: (call: OutgoingCall) => void,
): { readonly call: OutgoingCall; readonly result: Promise<string> } {
  let settled: (outcome: CallSettlement) => void = () => undefined;
  const result = new Promise<string>((resolve, reject) => {
    settled = (outcome) => (outcome.ok ? resolve(outcome.result) : reject(outcome.error));
  });
  const onAbort = () => cancel(call);
  const { id, sessionId, tool, args, frame, effectful, tokenId } = fields;
  const call: OutgoingCall = {
    id,
    sessionId,
    tool,
    args,
    frame,
    effectful,
    tokenId,
    channel: null,
    handedTo: null,
    abandoned: false,
    timer: undefined,
    settle: (outcome) => {
      signal.removeEventListener('abort', onAbort);
      settled(outcome);
    },
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return { call, result };
}
