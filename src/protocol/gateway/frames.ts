import { MAX_CALL_ID_CHARS, MAX_INTENTION_CHARS, MAX_TOOL_NAME_CHARS } from '../limits.js';
import { BerthError } from '../errors/index.js';

/**
 * The gateway channel's frames, exactly as docs/gateway.md (`contract/gateway-v1.json`)
 * gives them, for both ends: B (the agent host) sends `ready` then `call`
 * frames, A (the workspace owner) answers `result` frames. Every frame is one
 * JSON text message; a frame is taken whole or refused whole (docs/gateway.md, Frames).
 */

/** docs/gateway.md `protocol`. */
export const GATEWAY_PROTOCOL = 1;

/** docs/gateway.md `endpoint`, with the workspace id as one percent-encoded path segment. */
export const CHANNEL_PATH = /^\/api\/ai-gateway\/v1\/workspaces\/([^/]+)\/channel$/;

export function channelPath(workspaceId: string): string {
  return `/api/ai-gateway/v1/workspaces/${encodeURIComponent(workspaceId)}/channel`;
}

/** Remote workspace ids (`--remote-workspace`, `--workspace-id`): a name, never a path. */
export const REMOTE_WORKSPACE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** WebSocket close codes the channel uses (RFC 6455 §7.4.1). */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  protocolError: 1002,
  unsupportedData: 1003,
  invalidPayload: 1007,
  policyViolation: 1008,
  tooBig: 1009,
  internalError: 1011,
} as const;

export interface ReadyFrame {
  readonly type: 'ready';
  readonly protocol: typeof GATEWAY_PROTOCOL;
}

export interface CallFrame {
  readonly type: 'call';
  readonly protocol: typeof GATEWAY_PROTOCOL;
  readonly id: string;
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly intention: string;
  readonly tool: string;
  /** The tool arguments as JSON text. */
  readonly args: string;
}

export interface ResultFrame {
  readonly type: 'result';
  readonly id: string;
  readonly sessionId: string;
  /** The tool result, or an error object `{code, message, retryable}`, as JSON text. */
  readonly result: string;
}

export const READY_FRAME: ReadyFrame = { type: 'ready', protocol: GATEWAY_PROTOCOL };

export const encodeFrame = (frame: ReadyFrame | CallFrame | ResultFrame): string => JSON.stringify(frame);

/** A frame's text could not be read as JSON at all (close 1007), as opposed to a JSON frame of the wrong shape (1002). */
export class UnreadableFrame extends BerthError {
  constructor(message: string) {
    super('protocol_error', message);
  }
}

/**
 * A call frame whose envelope is sound enough to answer (it has an id and a
 * session) but whose content is refused: A answers it with an error result
 * instead of dropping the channel.
 */
export class RefusedCall extends BerthError {
  constructor(
    readonly callId: string,
    readonly sessionId: string,
    error: BerthError,
  ) {
    super(error.code, error.message, error.details);
  }
}

function parseObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UnreadableFrame('A channel frame must be one JSON text');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BerthError('protocol_error', 'A channel frame must be a JSON object');
  }
  return value as Record<string, unknown>;
}

const boundedString = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;

/** What A reads from B: `ready` or `call`. Throws UnreadableFrame, RefusedCall or a protocol_error. */
export function parseHostFrame(text: string): ReadyFrame | CallFrame {
  const f = parseObject(text);
  if (f.type === 'ready') {
    if (f.protocol !== GATEWAY_PROTOCOL) {
      throw new BerthError('protocol_error', `The host speaks gateway protocol ${String(f.protocol)}; this owner speaks ${GATEWAY_PROTOCOL}`);
    }
    return READY_FRAME;
  }
  if (f.type !== 'call') throw new BerthError('protocol_error', `Unexpected frame type ${JSON.stringify(f.type)}`);
  if (!boundedString(f.id, MAX_CALL_ID_CHARS) || !boundedString(f.sessionId, MAX_CALL_ID_CHARS)) {
    throw new BerthError('protocol_error', 'A call frame needs a string id and sessionId');
  }
  const refuse = (message: string) => new RefusedCall(f.id as string, f.sessionId as string, new BerthError('protocol_error', message));
  if (f.protocol !== GATEWAY_PROTOCOL) throw refuse(`Unsupported protocol ${String(f.protocol)}`);
  if (typeof f.workspaceId !== 'string') throw refuse('`workspaceId` must be a string');
  if (typeof f.intention !== 'string' || f.intention.length > MAX_INTENTION_CHARS) {
    throw refuse(`\`intention\` must be a string of at most ${MAX_INTENTION_CHARS} characters`);
  }
  if (!boundedString(f.tool, MAX_TOOL_NAME_CHARS)) throw refuse('`tool` must be a non-empty string');
  if (typeof f.args !== 'string') throw refuse('`args` must be JSON text');
  return {
    type: 'call',
    protocol: GATEWAY_PROTOCOL,
    id: f.id,
    workspaceId: f.workspaceId,
    sessionId: f.sessionId,
    intention: f.intention,
    tool: f.tool,
    args: f.args,
  };
}

/** What B reads from A: only `result`. Throws UnreadableFrame or a protocol_error. */
export function parseOwnerFrame(text: string): ResultFrame {
  const f = parseObject(text);
  if (f.type !== 'result') throw new BerthError('protocol_error', `Unexpected frame type ${JSON.stringify(f.type)}`);
  if (!boundedString(f.id, MAX_CALL_ID_CHARS) || !boundedString(f.sessionId, MAX_CALL_ID_CHARS) || typeof f.result !== 'string') {
    throw new BerthError('protocol_error', 'A result frame needs string id, sessionId and result');
  }
  return { type: 'result', id: f.id, sessionId: f.sessionId, result: f.result };
}
