import { BerthError } from '../../protocol/errors/index.js';
import type { ChannelIdentity, ChannelReservation } from './hub.js';

/**
 * Counts gateway channels across the nodes of a cluster (src/cluster/channel-presence.ts), so
 * the channel limits of docs/gateway.md hold for the whole cluster; absent on a daemon alone.
 */
export interface FleetChannels {
  /** Takes a slot for one channel; resolves with the limit that refused it, or null. */
  claim(claimId: string, identity: ChannelIdentity): Promise<'cluster' | 'token' | null>;
  /** Frees the slot; idempotent. */
  release(claimId: string): void;
  /** The nodes holding live channels of the workspace, the one whose channel opened first leading. */
  holdersOf(workspaceId: string): Promise<readonly string[]>;
}

/**
 * A channel this node admitted under its own limits, also claimed across the cluster: refused
 * with the same `channel_limit_exceeded` as one daemon's limits when the cluster is full, and
 * freed across the cluster when the channel closes or its handshake fails.
 */
export async function claimAcrossNodes(
  local: ChannelReservation,
  fleet: FleetChannels,
  claimId: string,
  identity: ChannelIdentity,
  limits: { readonly maxChannels: number; readonly maxChannelsPerToken: number },
): Promise<ChannelReservation> {
  let refusal: 'cluster' | 'token' | null;
  try {
    refusal = await fleet.claim(claimId, identity);
  } catch (err) {
    local.release();
    throw err;
  }
  if (refusal !== null) {
    local.release();
    const limit = refusal === 'cluster' ? limits.maxChannels : limits.maxChannelsPerToken;
    const who = refusal === 'cluster' ? 'The cluster already holds' : 'This token already holds';
    throw new BerthError('channel_limit_exceeded', `${who} ${limit} gateway channels`, {
      limit,
      scope: refusal === 'cluster' ? 'daemon' : 'token',
      retryAfterSeconds: 5,
    });
  }
  let opened = false;
  return {
    open(link) {
      const channel = local.open(link);
      opened = true;
      return {
        id: channel.id,
        received: (frame) => channel.received(frame),
        closed: () => {
          channel.closed();
          fleet.release(claimId);
        },
      };
    },
    release() {
      local.release();
      if (!opened) fleet.release(claimId);
    },
  };
}
