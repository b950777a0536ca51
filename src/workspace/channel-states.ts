/** What the web app shows of a remote workspace's gateway channel (docs/gateway.md). */
export interface ChannelState {
  /** `connected` while the owner holds at least one channel open. */
  readonly state: 'connected' | 'disconnected';
  readonly channels: number;
  readonly callsInFlight: number;
  readonly callsWaiting: number;
}

const NONE: ChannelState = { state: 'disconnected', channels: 0, callsInFlight: 0, callsWaiting: 0 };

/**
 * Where other faces read a remote workspace's channel state. The gateway face
 * owns the channels and lends a reader once it starts (as the module socket
 * face tells messaging its socket paths); before that, or without a gateway,
 * every remote workspace reads as disconnected.
 */
export class ChannelStates {
  private reader: ((workspaceId: string) => ChannelState | undefined) | null = null;

  setReader(reader: (workspaceId: string) => ChannelState | undefined): void {
    this.reader = reader;
  }

  of(workspaceId: string): ChannelState {
    return this.reader?.(workspaceId) ?? NONE;
  }
}
