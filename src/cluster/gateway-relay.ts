import { BerthError } from '../protocol/errors/index.js';
import { errorFrom } from './bus-errors.js';
import type { GatewayAnswer, GatewayCall, GatewayMessage, LocalGateway } from './gateway-serve.js';
import { GATEWAY_PROBE_MS, GATEWAY_RELAY_TIMEOUT_MS, GATEWAY_WHERE_TIMEOUT_MS } from './limits.js';
import { GATEWAY_UP_SUBJECT, gatewaySubject, gatewayWhereSubject } from './subjects.js';
import { BusRequestError, type BusSubscription, type BusTransport } from './transport.js';

export interface GatewayRelayOptions {
  readonly transport: BusTransport;
  readonly nodeId: string;
  readonly local: LocalGateway;
  /** How long a call waits while no node holds a channel (Config.channelWaitMs), as on one daemon. */
  readonly waitMs: number;
  readonly newId: () => string;
  readonly probeMs?: number;
}

/** Nothing was sent: the holder had no channel any more when the call arrived, or was gone before it. */
const NOT_HELD = Symbol('not held');

/**
 * A remote workspace's tool calls on a node of a cluster (docs/cluster-bus.md, gateway channels).
 * A call goes through this node's hub when a channel of the workspace is open here; otherwise
 * to the node that holds one (asked on the workspace's `where` subject), which runs it through
 * its own hub, so that hub's in-flight limit counts the calls of every node. While no node
 * holds one, the call waits up to `waitMs` for a channel to come up anywhere, then fails
 * `channel_unavailable` exactly as on one daemon.
 */
export class GatewayRelay {
  /** Calls waiting for a channel, per workspace: woken when one opens here or another node says `up`. */
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly upSub: BusSubscription;
  /** The holder each workspace's last relayed call reached: asked first, so a steady call costs one round trip, not two. */
  private readonly holders = new Map<string, string>();

  constructor(private readonly options: GatewayRelayOptions) {
    options.local.watchChannels((workspaceId) => options.local.holds(workspaceId) && this.wake(workspaceId));
    this.upSub = options.transport.subscribe(GATEWAY_UP_SUBJECT, (data) => this.wake(Buffer.from(data).toString('utf8')));
  }

  async call(request: GatewayCall, signal: AbortSignal): Promise<string> {
    const { local, waitMs } = this.options;
    let waited = 0;
    for (;;) {
      if (signal.aborted) throw new BerthError('tool_cancelled', `The call to ${request.tool} was cancelled before it was sent`);
      if (local.holds(request.workspaceId)) return local.call(request, signal);
      const woken = this.waiter(request.workspaceId);
      try {
        const holder = this.holders.get(request.workspaceId) ?? (await this.where(request.workspaceId));
        if (holder !== undefined && holder !== this.options.nodeId) {
          this.holders.set(request.workspaceId, holder);
          const answer = await this.relay(holder, request, signal).catch((err: unknown) => {
            this.holders.delete(request.workspaceId);
            throw err;
          });
          if (answer !== NOT_HELD) return answer;
          // That node holds no channel of it any more (or is gone): ask again.
          this.holders.delete(request.workspaceId);
          continue;
        }
        if (local.holds(request.workspaceId)) continue;
        const started = performance.now();
        const came = waited < waitMs && (await woken.within(waitMs - waited, signal));
        waited += performance.now() - started;
        if (!came) {
          if (signal.aborted) continue;
          throw new BerthError('channel_unavailable', `No gateway channel for workspace ${request.workspaceId} came up within ${waitMs} ms`, {
            workspaceId: request.workspaceId,
          });
        }
      } finally {
        woken.stop();
      }
    }
  }

  close(): void {
    this.upSub.unsubscribe();
  }

  /** The node holding a channel of the workspace now, as the first holder to answer says; undefined when none does. */
  private async where(workspaceId: string): Promise<string | undefined> {
    try {
      const data = await this.options.transport.request(gatewayWhereSubject(workspaceId), '', GATEWAY_WHERE_TIMEOUT_MS);
      return Buffer.from(data).toString('utf8');
    } catch (err) {
      if (err instanceof BusRequestError) return undefined;
      throw err;
    }
  }

  /** Sends the call to `holder` and waits for its hub's answer, probing meanwhile that the holder still listens. */
  private async relay(holder: string, request: GatewayCall, signal: AbortSignal): Promise<string | typeof NOT_HELD> {
    const { transport, newId } = this.options;
    const subject = gatewaySubject(holder);
    const ticket = newId();
    const send = (message: GatewayMessage, timeoutMs: number) => transport.request(subject, JSON.stringify(message), timeoutMs);
    const message = JSON.stringify({ op: 'call', ticket, ...request } satisfies GatewayMessage);
    if (Buffer.byteLength(message) > transport.maxPayload) {
      throw new BerthError('bus_message_too_large', `The relayed call exceeds the bus message size (${transport.maxPayload} bytes)`, { limit: transport.maxPayload });
    }
    const onAbort = () => void send({ op: 'cancel', ticket }, GATEWAY_WHERE_TIMEOUT_MS).catch(() => undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    let probes: NodeJS.Timeout | undefined;
    const holderGone = new Promise<'gone'>((resolve) => {
      probes = setInterval(() => {
        send({ op: 'probe' }, GATEWAY_WHERE_TIMEOUT_MS).catch((err: unknown) => {
          if (err instanceof BusRequestError && err.reason === 'no_responders') resolve('gone');
        });
      }, this.options.probeMs ?? GATEWAY_PROBE_MS);
    });
    try {
      const answered = await Promise.race([transport.request(subject, message, GATEWAY_RELAY_TIMEOUT_MS), holderGone]);
      if (answered === 'gone') throw lost(request, `the node ${holder} holding its channel stopped answering`);
      return readAnswer(answered);
    } catch (err) {
      if (!(err instanceof BusRequestError)) throw err;
      // Nobody listened on the holder's subject: it went away before the call reached it, so nothing was sent.
      if (err.reason === 'no_responders') return NOT_HELD;
      throw lost(request, `the node ${holder} holding its channel did not answer (${err.reason})`);
    } finally {
      clearInterval(probes);
      signal.removeEventListener('abort', onAbort);
    }
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

function readAnswer(data: Uint8Array): string | typeof NOT_HELD {
  const answer = JSON.parse(Buffer.from(data).toString('utf8')) as GatewayAnswer;
  if ('notHeld' in answer) return NOT_HELD;
  if (answer.ok) return answer.result;
  throw errorFrom(answer.error);
}

/** A call that went out and whose answer will never come back (as src/gateway/host/workspace-line.ts reports a lost channel). */
function lost(request: GatewayCall, why: string): BerthError {
  if (!request.effectful) return new BerthError('channel_unavailable', `The call to ${request.tool} got no answer: ${why}`, { workspaceId: request.workspaceId });
  return new BerthError(
    'uncertain_effect',
    `The call to ${request.tool} may have run on the owner's machine: ${why}. Inspect its effects before trying again.`,
    { tool: request.tool },
  );
}
