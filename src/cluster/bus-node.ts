import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { EventTap } from '../events/bus.js';
import { MAX_SUBSCRIBERS_PER_SESSION } from '../events/limits.js';
import type { EventBusStats } from '../events/stats.js';
import type { SubscriberQueue } from '../events/subscriber-queue.js';
import type { SubscribeOptions, Subscription } from '../events/types.js';
import type { Logger } from '../log.js';
import type { ApplicationToolRegistry } from '../tools/application-registry.js';
import type { Workspace } from '../workspace/types.js';
import { BerthError } from '../protocol/errors/index.js';
import { clusterEventTap } from './event-tap.js';
import { mirrorApplications } from './app-mirror.js';
import { forwardRequest, serveForwarded } from './forward.js';
import { GatewayRelay } from './gateway-relay.js';
import { serveGateway, type LocalGateway } from './gateway-serve.js';
import { FOLLOWED_NOTICE_MS, FORWARD_TIMEOUT_MS, REPLAY_TIMEOUT_MS } from './limits.js';
import type { SessionLocation, SessionPlacement } from './placement.js';
import type { ClusterPort, ForwardedRequest, ForwardedResponse } from './port.js';
import { openRemoteFeed } from './remote-feed.js';
import { RemoteLocations } from './remote-locations.js';
import { serveReplays, type ReplaySource } from './replay-server.js';
import { downSubject, followedSubject, isSubjectToken } from './subjects.js';
import { BusTabPeers, serveTabs } from './tab-peers.js';
import { WatchedSessions } from './watched-sessions.js';
import type { TabPeers, TabsHere } from '../messaging/peers.js';
import type { BusSubscription, BusTransport } from './transport.js';

/** Carries the mark of a request this node runs for another one. */
const FORWARDED_HEADER = 'x-berth-forwarded';

export interface BusNodeOptions {
  readonly transport: BusTransport;
  readonly placement: SessionPlacement;
  readonly clock: Clock;
  readonly log: Logger;
  readonly stats?: EventBusStats;
  readonly forwardTimeoutMs?: number;
  readonly replayTimeoutMs?: number;
  readonly followedNoticeMs?: number;
  /** Whether this node holds the session's lease now (no query); without it, only `placement` says. */
  readonly holds?: (sessionId: string) => boolean;
  readonly remoteLocationTtlMs?: number;
}

/** What this node offers the others once its HTTP stack exists. */
export interface ClusterServices {
  /** Runs a forwarded request through this node's HTTP stack. */
  readonly handle: (request: ForwardedRequest) => Promise<ForwardedResponse>;
  /** A session this node runs, for a follower's replay. */
  readonly open: (sessionId: string) => Promise<ReplaySource>;
  /** Another node still streams this session to a client: it is not idle. */
  readonly followed: (sessionId: string) => void;
}

/**
 * One daemon's place on the cluster bus (docs/cluster-bus.md): the port the faces
 * ask (where a session runs, forward, follow), the tap its sessions publish through,
 * and the two services it answers for the others. `close()` tells the followers of
 * its sessions that it stops, then leaves the bus.
 */
export class BusNode implements ClusterPort {
  private readonly served: BusSubscription[] = [];
  /** Open remote streams per session, with the node that runs it. */
  private readonly following = new Map<string, { nodeId: string; feeds: Set<SubscriberQueue> }>();
  private notices: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  /** Marks the requests this node runs for others; random per process, so no client can forge it. */
  private readonly mark = randomUUID();
  /** Other nodes' sessions, so a run of requests for one reads its lease row once, not each time. */
  private readonly remotes: RemoteLocations;
  /** This node's sessions that other nodes stream: the only ones whose events go on the bus. */
  private readonly watched: WatchedSessions;

  constructor(private readonly options: BusNodeOptions) {
    if (!isSubjectToken(options.placement.nodeId)) throw new RangeError('a node id must match [A-Za-z0-9_-]{1,128}');
    this.remotes = new RemoteLocations(() => options.clock.now(), options.remoteLocationTtlMs);
    // Three notice intervals: a follower's notices come one interval apart, so a late one does not silence its stream.
    this.watched = new WatchedSessions(() => options.clock.now(), 3 * (options.followedNoticeMs ?? FOLLOWED_NOTICE_MS));
  }

  get nodeId(): string {
    return this.options.placement.nodeId;
  }

  /**
   * A session id that cannot be a subject token is never another node's: it stays here and fails as it would.
   * One this node holds is local; one found on another node lately is taken to be there still
   * (`RemoteLocations`), so only the first of a run of requests reads the lease row.
   */
  locate(sessionId: string): Promise<SessionLocation> {
    if (!isSubjectToken(sessionId) || this.options.holds?.(sessionId)) return Promise.resolve({ kind: 'local' });
    const known = this.remotes.nodeOf(sessionId);
    if (known !== undefined) return Promise.resolve({ kind: 'remote', nodeId: known });
    return this.options.placement.locate(sessionId).then((where) => {
      if (where.kind === 'remote') this.remotes.remember(sessionId, where.nodeId);
      return where;
    });
  }

  /** A failure or a 503 from `nodeId` (down, draining, no longer the owner) drops what was remembered of it. */
  async forward(nodeId: string, request: ForwardedRequest): Promise<ForwardedResponse> {
    try {
      const answer = await forwardRequest(this.options.transport, nodeId, request, this.options.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS);
      if (answer.status === 503) this.remotes.forgetNode(nodeId);
      return answer;
    } catch (err) {
      this.remotes.forgetNode(nodeId);
      throw err;
    }
  }

  async follow(sessionId: string, nodeId: string, subscribe: SubscribeOptions): Promise<Subscription> {
    // The per-session subscriber cap holds per node: the owner counts its own, each follower its own.
    const count = this.following.get(sessionId)?.feeds.size ?? 0;
    if (count >= MAX_SUBSCRIBERS_PER_SESSION) {
      this.options.stats?.refused();
      throw new BerthError('subscriber_limit_exceeded', `EventBus subscriber limit reached (${MAX_SUBSCRIBERS_PER_SESSION})`, { limit: MAX_SUBSCRIBERS_PER_SESSION });
    }
    const feed = await openRemoteFeed({
      transport: this.options.transport,
      sessionId,
      ownerNodeId: nodeId,
      subscribe,
      timeoutMs: this.options.replayTimeoutMs ?? REPLAY_TIMEOUT_MS,
      now: () => this.options.clock.now(),
      newId: randomUUID,
      ...(this.options.stats && { stats: this.options.stats }),
    });
    const entry = this.following.get(sessionId) ?? { nodeId, feeds: new Set<SubscriberQueue>() };
    entry.feeds.add(feed);
    this.following.set(sessionId, entry);
    void feed.detached.then(() => {
      entry.feeds.delete(feed);
      if (entry.feeds.size === 0 && this.following.get(sessionId) === entry) this.following.delete(sessionId);
    });
    return feed;
  }

  /** The sessions this node streams from other nodes, with the node each one's streams follow. */
  followed(): ReadonlyMap<string, string> {
    return new Map([...this.following].map(([sessionId, { nodeId }]) => [sessionId, nodeId]));
  }

  /**
   * Ends the streams following `sessionId` from `nodeId`, as that node's `down` would: its lease
   * ran out without a word (a killed node), so its clients reconnect and resync now rather than
   * at the next owner's first event.
   */
  ownerGone(sessionId: string, nodeId: string): void {
    const entry = this.following.get(sessionId);
    if (entry?.nodeId === nodeId) for (const feed of [...entry.feeds]) feed.end();
  }

  isForwarded(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
    return headers[FORWARDED_HEADER] === this.mark;
  }

  /** The headers a forwarded request runs with here: this node's mark added. */
  markForwarded(headers: Readonly<Record<string, string | string[]>>): Record<string, string | string[]> {
    return { ...headers, [FORWARDED_HEADER]: this.mark };
  }

  reachable(): boolean {
    return this.options.transport.reachable();
  }

  /** The tap of a session this node runs: its events go out on the session's subject while another node streams it. */
  tapFor(sessionId: string): EventTap | undefined {
    if (!isSubjectToken(sessionId)) return undefined;
    return clusterEventTap(this.options.transport, sessionId, this.options.log, () => this.watched.has(sessionId));
  }

  /** Starts answering the other nodes: forwarded requests and replay questions. */
  serve(services: ClusterServices): void {
    const { transport, log } = this.options;
    this.served.push(serveForwarded(transport, this.nodeId, services.handle, log));
    // Marked before the replay is cut: the events after it go out on the bus, so the follower misses none.
    const open = (sessionId: string) => {
      if (isSubjectToken(sessionId)) this.watched.mark(sessionId);
      return services.open(sessionId);
    };
    this.served.push(serveReplays(transport, this.nodeId, open, log));
    this.served.push(transport.subscribe(followedSubject(this.nodeId), (data) => {
      for (const sessionId of Buffer.from(data).toString('utf8').split(',')) {
        if (!isSubjectToken(sessionId)) continue;
        this.watched.mark(sessionId);
        services.followed(sessionId);
      }
    }));
    this.notices = setInterval(() => this.noticeFollowed(), this.options.followedNoticeMs ?? FOLLOWED_NOTICE_MS);
    this.notices.unref();
  }

  /** The module protocol across nodes: this node answers the others about its tabs, and asks them about theirs. */
  shareTabs(here: TabsHere, nodesOf: (workspaceId: string) => Promise<string[]>): TabPeers {
    const { transport, log } = this.options;
    this.served.push(serveTabs(transport, this.nodeId, here, log));
    return new BusTabPeers({ transport, nodesOf, log });
  }

  /**
   * Gateway channels across nodes (docs/cluster-bus.md): answers for the channels `local` holds,
   * and gives the relay that sends a remote workspace's calls to whichever node holds its channel.
   */
  gateway(local: LocalGateway, waitMs: number): GatewayRelay {
    const { transport, log } = this.options;
    this.served.push(serveGateway(transport, this.nodeId, local, log));
    const relay = new GatewayRelay({ transport, nodeId: this.nodeId, local, waitMs, newId: randomUUID });
    this.served.push({ unsubscribe: () => relay.close() });
    return relay;
  }

  /** Application tools across nodes (docs/cluster-bus.md): this node's applications announced, the others' copied into `registry`. */
  applications(registry: ApplicationToolRegistry, workspaceOf: (workspaceId: string) => Workspace | undefined): void {
    this.served.push(mirrorApplications(this.options.transport, this.nodeId, registry, workspaceOf, this.options.log));
  }

  /** Tells each owner which of its sessions this node streams now. */
  noticeFollowed(): void {
    const byOwner = new Map<string, string[]>();
    for (const [sessionId, { nodeId }] of this.following) byOwner.set(nodeId, [...(byOwner.get(nodeId) ?? []), sessionId]);
    for (const [nodeId, ids] of byOwner) this.options.transport.publish(followedSubject(nodeId), ids.join(','));
  }

  /** Idempotent: says this node stops (its followers end their streams), stops answering, leaves the bus. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const { transport } = this.options;
      clearInterval(this.notices);
      for (const s of this.served.splice(0)) s.unsubscribe();
      transport.publish(downSubject(this.nodeId), '');
      await transport.flush().catch(() => undefined);
      await transport.close();
    })();
    return this.closing;
  }
}
