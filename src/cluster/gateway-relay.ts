import { BerthError } from '../protocol/errors/index.js';
import { askHolder, NOT_HELD, whereHeld } from './gateway-ask.js';
import type { GatewayCall, LocalGateway } from './gateway-serve.js';
import { GATEWAY_UP_SUBJECT } from './subjects.js';
import type { BusSubscription, BusTransport } from './transport.js';

/** How long a node that said it holds no channel is passed over while the store still lists it (its rows lapse with its lease). */
const PASSED_OVER_MS = 60_000;

export interface GatewayRelayOptions {
  readonly transport: BusTransport;
  readonly nodeId: string;
  readonly local: LocalGateway;
  /** How long a call waits while no node holds a channel (Config.channelWaitMs), as on one daemon. */
  readonly waitMs: number;
  readonly newId: () => string;
  readonly probeMs?: number;
}

/**
 * A remote workspace's tool calls on a node of a cluster (docs/cluster-bus.md, gateway channels).
 * Every node sends a workspace's calls to one carrier: the node holding its oldest live channel
 * (`gateway_channels`), this node's own hub when that is this node. The carrier runs them
 * through its hub, so that hub's in-flight limit counts the calls of every node, once for the
 * cluster even when A has channels on several nodes. While no node
 * holds one, the call waits up to `waitMs` for a channel to come up anywhere, then fails
 * `channel_unavailable` exactly as on one daemon.
 */
export class GatewayRelay {
  /** Calls waiting for a channel, per workspace: woken when one opens here or another node says `up`. */
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly upSub: BusSubscription;
  /** The node carrying each workspace's calls, as last found: asked first, so a steady call costs one round trip, not two. */
  private readonly holders = new Map<string, string>();
  /** Per workspace, nodes the store still lists that said they hold no channel, and when. */
  private readonly passedOver = new Map<string, Map<string, number>>();

  constructor(private readonly options: GatewayRelayOptions) {
    options.local.watchChannels((workspaceId) => this.changed(workspaceId));
    this.upSub = options.transport.subscribe(GATEWAY_UP_SUBJECT, (data) => this.changed(Buffer.from(data).toString('utf8')));
  }

  async call(request: GatewayCall, signal: AbortSignal): Promise<string> {
    const { local, waitMs, nodeId } = this.options;
    const workspaceId = request.workspaceId;
    let waited = 0;
    for (;;) {
      if (signal.aborted) throw new BerthError('tool_cancelled', `The call to ${request.tool} was cancelled before it was sent`);
      const known = this.holders.get(workspaceId);
      // The steady case on the carrying node: straight to its own hub, as on one daemon.
      if (known === nodeId && local.holds(workspaceId)) return local.call(request, signal);
      const woken = this.waiter(workspaceId);
      try {
        const holder = known ?? (await this.carrier(workspaceId));
        if (holder === nodeId && local.holds(workspaceId)) {
          this.holders.set(workspaceId, holder);
          continue;
        }
        if (holder !== undefined && holder !== nodeId) {
          this.holders.set(workspaceId, holder);
          const ticket = this.options.newId();
          const answer = await askHolder(this.options.transport, holder, { op: 'call', ticket, ...request }, request, signal, this.options.probeMs).catch((err: unknown) => {
            this.holders.delete(workspaceId);
            throw err;
          });
          if (answer !== NOT_HELD) return answer;
          // That node holds no channel of it any more (or is gone): look again, past it.
          this.forget(workspaceId, holder);
          continue;
        }
        this.holders.delete(workspaceId);
        if (local.holds(workspaceId)) continue;
        const started = performance.now();
        const came = waited < waitMs && (await woken.within(waitMs - waited, signal));
        waited += performance.now() - started;
        if (!came) {
          if (signal.aborted) continue;
          throw new BerthError('channel_unavailable', `No gateway channel for workspace ${workspaceId} came up within ${waitMs} ms`, { workspaceId });
        }
      } finally {
        woken.stop();
      }
    }
  }

  /**
   * The node that carries the workspace's calls: the one holding its oldest live channel, as the
   * store lists them, past nodes that just said they hold none; this node when the store lists
   * none it may use and it holds one; otherwise whoever answers `where`.
   */
  private async carrier(workspaceId: string): Promise<string | undefined> {
    const { local, nodeId, transport } = this.options;
    const passed = this.passedOver.get(workspaceId);
    const now = performance.now();
    const listed = await local.holdersOf(workspaceId).catch(() => [] as readonly string[]);
    const first = listed.find((n) => (n === nodeId ? local.holds(workspaceId) : (passed?.get(n) ?? -Infinity) < now - PASSED_OVER_MS));
    if (first !== undefined) return first;
    if (local.holds(workspaceId)) return nodeId;
    return whereHeld(transport, workspaceId);
  }

  /** A node that answered it holds no channel of the workspace is passed over until it says `up` again (its rows may outlive it). */
  private forget(workspaceId: string, node: string): void {
    this.holders.delete(workspaceId);
    const passed = this.passedOver.get(workspaceId) ?? new Map<string, number>();
    passed.set(node, performance.now());
    this.passedOver.set(workspaceId, passed);
  }

  /** Channels of the workspace changed here, or came up elsewhere: which node carries its calls is asked again. */
  private changed(workspaceId: string): void {
    this.holders.delete(workspaceId);
    this.passedOver.delete(workspaceId);
    this.wake(workspaceId);
  }

  close(): void {
    this.upSub.unsubscribe();
  }

  private waiter(workspaceId: string): { within(ms: number, signal: AbortSignal): Promise<boolean>; stop(): void } {
    let fired = false;
    let wake: () => void = () => (fired = true);
    const listener = () => wake();
    const set = this.waiting.get(workspaceId) ?? new Set();
    set.add(listener);
    this.waiting.set(workspaceId, set);
    return {
      within: (ms, signal) =>
        fired
          ? Promise.resolve(true)
          : new Promise<boolean>((resolve) => {
              const done = (came: boolean) => {
                clearTimeout(timer);
                signal.removeEventListener('abort', onAbort);
                resolve(came);
              };
              const onAbort = () => done(false);
              const timer = setTimeout(() => done(false), ms);
              signal.addEventListener('abort', onAbort, { once: true });
              wake = () => done(true);
            }),
      stop: () => {
        set.delete(listener);
        if (set.size === 0) this.waiting.delete(workspaceId);
      },
    };
  }

  private wake(workspaceId: string): void {
    for (const listener of [...(this.waiting.get(workspaceId) ?? [])]) listener();
  }
}
