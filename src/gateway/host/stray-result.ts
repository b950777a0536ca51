import type { Logger } from '../../log.js';
import type { ResultFrame } from '../../protocol/gateway/frames.js';
import type { WriteChain } from '../../write-chain.js';
import type { GatewayCallRepository } from './call-journal.js';
import type { Channel } from './outgoing-call.js';

/**
 * A result for no call in flight on its channel: a duplicate (already answered) or a late answer to
 * an abandoned call is recorded at most, never delivered again; anything else is only logged.
 */
export function recordStrayResult(
  deps: { readonly journal: GatewayCallRepository; readonly writes: WriteChain; readonly clock: { now(): number }; readonly log: Logger },
  workspaceId: string,
  channel: Channel,
  frame: ResultFrame,
): void {
  const at = deps.clock.now();
  deps.writes.submit('gateway journal write', async () => {
    const known = await deps.journal.find(frame.id);
    if (known && known.workspaceId === workspaceId && known.state !== 'sent') {
      // A duplicate (already answered) or a late answer to an abandoned call: recorded at most, never delivered again.
      if (known.state === 'abandoned') await deps.journal.answer(frame.id, frame.result, at);
      deps.log.debug({ callId: frame.id, state: known.state }, 'gateway result ignored');
      return;
    }
    deps.log.warn({ callId: frame.id, channelId: channel.id }, 'gateway result for no call in flight on this channel');
  });
}