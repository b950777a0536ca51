import type { Logger } from '../log.js';

/** The `gateway_channels` table as presence needs it (src/store/pg/gateway-channels.ts). */
export interface ChannelRows {
  claim(
    claim: { claimId: string; nodeId: string; workspaceId: string; tokenId: string },
    maxTotal: number,
    maxPerToken: number,
    leaseMs: number,
  ): Promise<'cluster' | 'token' | null>;
  release(claimId: string): Promise<void>;
  holdersOf(workspaceId: string): Promise<string[]>;
  renew(nodeId: string, claimIds: readonly string[], leaseMs: number): Promise<void>;
  clearNode(nodeId: string): Promise<void>;
}

export interface ChannelPresenceOptions {
  readonly rows: ChannelRows;
  readonly nodeId: string;
  /** The node's lease time: its channels stop counting this long after it stops renewing them. */
  readonly leaseMs: number;
  readonly limits: { readonly maxChannels: number; readonly maxChannelsPerToken: number };
  readonly log: Logger;
}

/**
 * The gateway channels this node holds, counted in PostgreSQL with every other node's
 * (docs/cluster-bus.md, gateway channels), so `--max-channels` and `--max-channels-per-token`
 * bound the cluster as they bound one daemon. Rows are renewed every third of the lease time,
 * like leases: a killed node's channels stop counting once they lapse.
 */
export class ChannelPresence {
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ChannelPresenceOptions) {}

  /** Forgets the rows an earlier process under this node id left, then keeps this one's alive. */
  async start(): Promise<void> {
    await this.options.rows.clearNode(this.options.nodeId);
    this.timer = setInterval(() => this.renew(), Math.max(1, Math.floor(this.options.leaseMs / 3)));
    this.timer.unref();
  }

  async claim(claimId: string, identity: { readonly tokenId: string; readonly workspaceId: string }): Promise<'cluster' | 'token' | null> {
    const { rows, nodeId, leaseMs, limits } = this.options;
    const refusal = await rows.claim({ claimId, nodeId, ...identity }, limits.maxChannels, limits.maxChannelsPerToken, leaseMs);
    if (refusal === null) this.held.add(claimId);
    return refusal;
  }

  release(claimId: string): void {
    if (!this.held.delete(claimId)) return;
    this.options.rows.release(claimId).catch((err: unknown) => this.options.log.warn({ err }, 'releasing a gateway channel row failed; it lapses with the lease time'));
  }

  /** The nodes holding live channels of the workspace, the one whose channel opened first leading. */
  holdersOf(workspaceId: string): Promise<readonly string[]> {
    return this.options.rows.holdersOf(workspaceId);
  }

  /** Stops renewing and drops this node's rows (a drain): its channels are closing. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.held.clear();
    await this.options.rows.clearNode(this.options.nodeId);
  }

  private renew(): void {
    const { rows, nodeId, leaseMs, log } = this.options;
    rows.renew(nodeId, [...this.held], leaseMs).catch((err: unknown) => log.warn({ err }, 'renewing the gateway channel rows failed'));
  }
}
