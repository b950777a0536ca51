import type { BerthError } from '../../protocol/errors/index.js';

/**
 * One open channel as the hub sees it. The WebSocket face implements `link`;
 * the hub only sends frame texts and closes.
 */
export interface ChannelLink {
  /** Sends one frame text; a link that is closing drops it (the call is re-sent after a reconnect). */
  send(text: string): void;
  close(code: number, reason: string): void;
}

export interface Channel {
  readonly id: string;
  readonly tokenId: string;
  readonly workspaceId: string;
  readonly link: ChannelLink;
  /** Order of opening, for the tie-break when choosing a channel. */
  readonly seq: number;
  /** Ids of the calls sent on this channel and not yet answered. */
  readonly calls: Set<string>;
}

/** How an outgoing call ends for the agent that made it: A's result text, or a refusal. */
export type CallSettlement = { readonly ok: true; readonly result: string } | { readonly ok: false; readonly error: BerthError };

/**
 * One call from B to a workspace owner, from submission to settlement.
 * `tokenId` is set when it is first sent and never changes: only the owner it
 * went to can say whether it ran (docs/gateway.md, Receipts: each effect once or uncertain).
 */
export interface OutgoingCall {
  readonly id: string;
  readonly sessionId: string;
  readonly tool: string;
  /** The `args` JSON text. */
  readonly args: string;
  /** The encoded `call` frame, sent as is each time. */
  readonly frame: string;
  /** write/critical: a call that may have run is reported `uncertain_effect`, never just "unavailable". */
  readonly effectful: boolean;
  tokenId: string | null;
  /** The channel it is on now; null while waiting to be sent or after its channel closed. */
  channel: Channel | null;
  /** The node of a cluster carrying it now that its channel here closed (src/gateway/host/handover.ts); null while here. */
  handedTo: string | null;
  /** Sent, then given up by its caller: it still holds its slot until A answers or the channel drops. */
  abandoned: boolean;
  /** The wait bound while no suitable channel is up (Config.channelWaitMs). */
  timer: NodeJS.Timeout | undefined;
  /** Resolves the caller once; later settlements are ignored. */
  settle(outcome: CallSettlement): void;
}
