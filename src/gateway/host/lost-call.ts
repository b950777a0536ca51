import { BerthError } from '../../protocol/errors/index.js';
import type { OutgoingCall } from './outgoing-call.js';

/** A call that went out and whose answer will never reach its caller. */
export function sentAndLost(call: Pick<OutgoingCall, 'id' | 'tool' | 'effectful'>, why: string): BerthError {
  if (!call.effectful) {
    return new BerthError('channel_unavailable', `The call to ${call.tool} got no answer: ${why}`, { callId: call.id });
  }
  return new BerthError(
    'uncertain_effect',
    `The call to ${call.tool} may have run on the owner's machine: ${why}. Inspect its effects before trying again.`,
    { callId: call.id, tool: call.tool },
  );
}
