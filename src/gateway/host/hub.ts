import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { GATEWAY_JOURNAL_RETENTION_MS } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Logger } from '../../log.js';
import type { GatewayCallRepository } from './call-journal.js';
import type { ResultFrame } from '../../protocol/gateway/frames.js';
import { callFrame, pendingCall } from './call-making.js';
import { adoptCall, HandoverLine, takeOrphans, type HandedCall, type OrphanCall } from './handover.js';
import type { Channel, ChannelLink } from './outgoing-call.js';
import { claimAcrossNodes, type FleetChannels } from './fleet-admission.js';
import type { LineDeps, WorkspaceLine } from './workspace-line.js';
import type { ChannelState } from '../../workspace/channel-states.js';
import { WriteChain } from '../../write-chain.js';
import { JournalRows, type Delay } from './journal-rows.js';

/** The bounds of docs/gateway.md `limits` (Config: maxChannels, maxChannelsPerToken, maxInflightCallsPerWorkspace, maxFrameBytes). */
export interface HubLimits {
  readonly maxChannels: number;
  readonly maxChannelsPerToken: number;
  readonly maxInflightCallsPerWorkspace: number;
  readonly maxFrameBytes: number;
  /** How long a call waits for a channel (Config.channelWaitMs). */
  readonly channelWaitMs: number;
}

export interface ChannelHubDeps {
  readonly limits: HubLimits;
  /** Remote workspace id → the launch intention B sends with each call (docs/gateway.md `intention`). */
  readonly intentions: ReadonlyMap<string, string>;
  readonly journal: GatewayCallRepository;
  readonly clock: Clock;
  readonly log: Logger;
  readonly newId?: () => string;
  /** Other nodes of a cluster may adopt this node's sent calls (handover.ts) and need their `sent` rows: stored before the frame leaves, not batched. */
  readonly otherNodesAdopt?: boolean;
  /** How batched journal rows are put off (a test holds them to play a crash before they are written). */
  readonly rowsDelay?: Delay;
}

/** Who opens a channel: a channel token (its id) for one workspace. */
export interface ChannelIdentity {
  readonly tokenId: string;
  readonly workspaceId: string;
}

/** A slot held while the WebSocket handshake completes; `open` it with the live link or `release` it. */
export interface ChannelReservation {
  open(link: ChannelLink): OpenChannel;
  /** Frees the slot; idempotent, and a no-op once the channel was opened (closing it frees the slot). */
  release(): void;
}

/** What the face reports about an open channel. */
export interface OpenChannel {
  readonly id: string;
  received(frame: ResultFrame): void;
  /** The socket is gone; idempotent. */
  closed(): void;
}

export interface RemoteCallRequest {
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** Policy write/critical. */
  readonly effectful: boolean;
}

/**
 * B's side of the gateway channel, without any WebSocket (docs/architecture.md: the core
 * knows nothing of sockets): which channels are open per workspace and token
 * (docs/gateway.md limits), and the calls the remote tool host sends through them.
 *
 * A restart of B abandons every call its journal still holds as `sent`: the
 * turns that made them died with the process, and sending them again would
 * make an effect nobody waits for. B's own receipts for those calls stay
 * `executing`, so the same call id is answered `uncertain_effect`.
 */
export class ChannelHub {
  private readonly lines = new Map<string, HandoverLine>();
  private readonly perToken = new Map<string, number>();
  private total = 0;
  private seq = 0;
  private stopped = false;
  private readonly newId: () => string;
  /** Told the workspace id each time one of its channels opens or closes (the cluster's presence, src/cluster/gateway-presence.ts). */
  private readonly watchers: Array<(workspaceId: string) => void> = [];
  private fleet: FleetChannels | undefined;
  /** Every journal write, in order: the previous run's calls are abandoned before any new one is written. */
  private readonly writes: WriteChain;
  private readonly rows: JournalRows;

  constructor(private readonly deps: ChannelHubDeps) {
    this.newId = deps.newId ?? randomUUID;
    this.writes = new WriteChain(deps.log, { component: 'gateway' });
    this.rows = new JournalRows(deps.journal, this.writes, deps.rowsDelay);
    const now = deps.clock.now();
    this.writes.submit('gateway journal recovery', async () => {
      const abandoned = await deps.journal.abandonAllSent(now);
      if (abandoned > 0) deps.log.warn({ abandoned }, 'gateway calls left unanswered by the previous run are abandoned');
      await deps.journal.pruneSettledBefore(now - GATEWAY_JOURNAL_RETENTION_MS);
    });
    const lineDeps: LineDeps = {
      journal: deps.journal, writes: this.writes, rows: this.rows, clock: deps.clock, log: deps.log,
      rowBeforeFrame: deps.otherNodesAdopt === true,
      maxInflight: deps.limits.maxInflightCallsPerWorkspace,
      waitMs: deps.limits.channelWaitMs,
    };
    for (const workspaceId of deps.intentions.keys()) this.lines.set(workspaceId, new HandoverLine(workspaceId, lineDeps));
  }

  /**
   * Admits a channel before its handshake completes: the workspace must be
   * remote, and neither the daemon-wide nor the per-token limit reached.
   */
  reserve(identity: ChannelIdentity): ChannelReservation {
    const line = this.lines.get(identity.workspaceId);
    if (!line) throw new BerthError('workspace_not_remote', `No remote workspace ${identity.workspaceId} is served here`);
    if (this.stopped) throw new BerthError('daemon_shutdown');
    const { maxChannels, maxChannelsPerToken } = this.deps.limits;
    if (this.total >= maxChannels) {
      throw new BerthError('channel_limit_exceeded', `This daemon already holds ${maxChannels} gateway channels`, {
        limit: maxChannels,
        scope: 'daemon',
        retryAfterSeconds: 5,
      });
    }
    const mine = this.perToken.get(identity.tokenId) ?? 0;
    if (mine >= maxChannelsPerToken) {
      throw new BerthError('channel_limit_exceeded', `This token already holds ${maxChannelsPerToken} gateway channels`, {
        limit: maxChannelsPerToken,
        scope: 'token',
        retryAfterSeconds: 5,
      });
    }
    this.total += 1;
    this.perToken.set(identity.tokenId, mine + 1);
    let state: 'held' | 'open' | 'released' = 'held';
    const free = () => {
      this.total -= 1;
      const left = (this.perToken.get(identity.tokenId) ?? 1) - 1;
      if (left > 0) this.perToken.set(identity.tokenId, left);
      else this.perToken.delete(identity.tokenId);
    };
    return {
      open: (link) => {
        if (state !== 'held') throw new Error('channel reservation used twice');
        state = 'open';
        return this.open(identity, line, link, free);
      },
      release: () => {
        if (state !== 'held') return;
        state = 'released';
        free();
      },
    };
  }

  /** `reserve`, and in a cluster the same limits counted across every node's channels. */
  admit(identity: ChannelIdentity): Promise<ChannelReservation> {
    const local = this.reserve(identity);
    if (!this.fleet) return Promise.resolve(local);
    return claimAcrossNodes(local, this.fleet, this.newId(), identity, this.deps.limits);
  }

  /** Counts the channel limits across a cluster's nodes from now on. */
  countAcrossNodes(fleet: FleetChannels): void {
    this.fleet = fleet;
  }

  private open(identity: ChannelIdentity, line: WorkspaceLine, link: ChannelLink, free: () => void): OpenChannel {
    const channel: Channel = {
      id: this.newId(),
      tokenId: identity.tokenId,
      workspaceId: identity.workspaceId,
      link,
      seq: this.seq++,
      calls: new Set(),
    };
    let closed = false;
    line.attach(channel);
    this.changed(identity.workspaceId);
    this.deps.log.info({ channelId: channel.id, workspaceId: channel.workspaceId, tokenId: channel.tokenId }, 'gateway channel open');
    return {
      id: channel.id,
      received: (frame) => {
        if (!closed) line.answer(channel, frame);
      },
      closed: () => {
        if (closed) return;
        closed = true;
        free();
        line.detach(channel);
        this.changed(channel.workspaceId);
        this.deps.log.info({ channelId: channel.id, workspaceId: channel.workspaceId }, 'gateway channel closed');
      },
    };
  }

  /**
   * Sends one tool call to the workspace's owner and resolves with A's
   * `result` text. Refusals (no channel in time, cancelled, shutdown, a frame
   * over the limit) reject with a BerthError.
   */
  call(request: RemoteCallRequest, signal: AbortSignal): Promise<string> {
    const line = this.lines.get(request.workspaceId);
    if (!line) return Promise.reject(new BerthError('workspace_not_remote', `No remote workspace ${request.workspaceId}`));
    if (this.stopped) return Promise.reject(new BerthError('daemon_shutdown'));
    if (signal.aborted) return Promise.reject(new BerthError('tool_cancelled', `The call to ${request.tool} was cancelled before it was sent`));
    const fields = { ...request, id: this.newId(), args: JSON.stringify(request.args) };
    const frame = callFrame(fields, this.deps.intentions.get(request.workspaceId)!);
    const bytes = Buffer.byteLength(frame);
    if (bytes > this.deps.limits.maxFrameBytes) {
      // Never sent: the owner would close the channel (1009) and the re-send would loop.
      return Promise.reject(
        new BerthError('frame_too_large', `The call frame would be ${bytes} bytes; channel frames are at most ${this.deps.limits.maxFrameBytes}`, {
          limit: this.deps.limits.maxFrameBytes,
        }),
      );
    }
    const { call, result } = pendingCall({ ...fields, frame, tokenId: null }, signal, (c) => line.cancel(c));
    line.submit(call);
    return result;
  }

  /** In a cluster, the nodes holding channels of the workspace, oldest channel first; none on a daemon alone. */
  holdersOf(workspaceId: string): Promise<readonly string[]> {
    return this.fleet ? this.fleet.holdersOf(workspaceId) : Promise.resolve([]);
  }

  /** Whether sent calls of the workspace wait for a channel of their token since theirs closed. */
  hasOrphans(workspaceId: string): boolean {
    return (this.lines.get(workspaceId)?.orphans().length ?? 0) > 0;
  }

  /** This node's sent calls of a workspace whose channel closed, handed to `toNode` (src/gateway/host/handover.ts). */
  takeOrphans(workspaceId: string, toNode: string): OrphanCall[] {
    const line = this.lines.get(workspaceId);
    return line && !this.stopped ? takeOrphans(line, toNode) : [];
  }

  /** A sent call another node hands over, sent again here; undefined when no channel of its token is open here. */
  adopt(handed: HandedCall, fromNode: string, signal: AbortSignal): Promise<string> | undefined {
    const line = this.lines.get(handed.workspaceId);
    if (!line || this.stopped) return undefined;
    return adoptCall(line, handed, callFrame(handed, this.deps.intentions.get(handed.workspaceId)!), fromNode, signal);
  }

  /** Calls `watcher` with the workspace id whenever one of its channels opens or closes. */
  watchChannels(watcher: (workspaceId: string) => void): void {
    this.watchers.push(watcher);
  }

  /** Whether a channel of `workspaceId` is open here now. */
  holds(workspaceId: string): boolean {
    return (this.lines.get(workspaceId)?.channelCount ?? 0) > 0;
  }

  private changed(workspaceId: string): void {
    for (const watcher of this.watchers) watcher(workspaceId);
  }

  /** One remote workspace's channels and calls (undefined: not a remote workspace served here). */
  stateOf(workspaceId: string): ChannelState | undefined {
    const line = this.lines.get(workspaceId);
    if (!line) return undefined;
    const channels = line.channelCount;
    return { state: channels > 0 ? 'connected' : 'disconnected', channels, callsInFlight: line.inflightCount, callsWaiting: line.waitingCount };
  }

  /** Deep-health counters (`GET /health?deep=1`). */
  counters(): Record<string, number> {
    let [inflight, waiting] = [0, 0];
    for (const line of this.lines.values()) {
      inflight += line.inflightCount;
      waiting += line.waitingCount;
    }
    return { gatewayChannels: this.total, gatewayCallsInFlight: inflight, gatewayCallsWaiting: waiting };
  }

  /** Resolves once every journal write submitted so far has settled, the batched rows written at once. */
  written(): Promise<void> {
    this.rows.flush();
    return this.writes.flush();
  }

  /** Settles every call with `daemon_shutdown` and closes every channel; resolves once the journal holds it all. Idempotent. */
  shutdown(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      for (const line of this.lines.values()) line.shutdown();
    }
    return this.written();
  }
}
