import type { Logger } from '../log.js';
import { failedAnswer, type BusError } from './bus-errors.js';
import { handOverOrphans, type HandedCall, type OrphanCall } from './gateway-handover.js';
import { GATEWAY_UP_SUBJECT, gatewaySubject, gatewayWhereSubject } from './subjects.js';
import type { BusSubscription, BusTransport } from './transport.js';

/** One tool call for a remote workspace, as the gateway hub takes it (src/gateway/host/hub.ts `RemoteCallRequest`). */
export interface GatewayCall {
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly effectful: boolean;
}

/** This node's own gateway hub, as the cluster sees it; the wiring hands in the `ChannelHub`. */
export interface LocalGateway {
  /** Whether a channel of the workspace is open on this node now. */
  holds(workspaceId: string): boolean;
  /** Runs the call through this node's channels, under its limits; resolves with the owner's result text. */
  call(request: GatewayCall, signal: AbortSignal): Promise<string>;
  watchChannels(watcher: (workspaceId: string) => void): void;
  /** The nodes holding channels of the workspace, the one whose channel opened first leading (empty: unknown). */
  holdersOf(workspaceId: string): Promise<readonly string[]>;
  /** Whether calls sent here wait for a channel of their token since theirs closed. */
  hasOrphans(workspaceId: string): boolean;
  /** Those calls, from now on carried by `toNode` (src/cluster/gateway-handover.ts). */
  takeOrphans(workspaceId: string, toNode: string): OrphanCall[];
  /** Sends another node's call again here, same id; undefined when no channel of its token is open here. */
  adopt(call: HandedCall, fromNode: string, signal: AbortSignal): Promise<string> | undefined;
}

/** What a relayed call sends (docs/cluster-bus.md, gateway channels). */
export type GatewayMessage =
  | ({ readonly op: 'call'; readonly ticket: string } & GatewayCall)
  | { readonly op: 'probe' }
  | { readonly op: 'cancel'; readonly ticket: string }
  | ({ readonly op: 'adopt'; readonly ticket: string; readonly fromNode: string } & HandedCall);

/** The holder's answer: the owner's result text, the hub's refusal, or "no channel here any more" (nothing was sent). */
export type GatewayAnswer =
  | { readonly ok: true; readonly result: string }
  | { readonly ok: false; readonly error: BusError }
  | { readonly notHeld: true };

/**
 * The holder's side of gateway channels across nodes: while this node holds a channel of a
 * workspace it answers that workspace's `where` subject (so the NATS server forgets it the
 * moment this node's connection dies), says `up` whenever its channels of it change while it
 * holds one, runs the calls other nodes relay to it through its own hub, exactly as a local
 * call, its limits included, and hands its calls of a dropped channel to the node A came back to.
 */
export function serveGateway(transport: BusTransport, nodeId: string, local: LocalGateway, log: Logger): BusSubscription {
  const present = new Map<string, BusSubscription>();
  let stopped = false;
  local.watchChannels((workspaceId) => {
    if (stopped) return;
    const held = local.holds(workspaceId);
    const sub = present.get(workspaceId);
    if (held && !sub) {
      present.set(workspaceId, transport.serve(gatewayWhereSubject(workspaceId), async () => nodeId));
      // The subscription reaches the server before anyone is told to look again.
      void transport.flush().then(() => transport.publish(GATEWAY_UP_SUBJECT, workspaceId), () => undefined);
    } else if (held) {
      // Another channel here (perhaps of another token): a node with calls waiting for one looks again.
      transport.publish(GATEWAY_UP_SUBJECT, workspaceId);
    } else if (sub) {
      sub.unsubscribe();
      present.delete(workspaceId);
    }
  });
  const running = new Map<string, AbortController>();
  const calls = transport.serve(gatewaySubject(nodeId), async (data) => {
    let message: GatewayMessage;
    try {
      message = readMessage(data);
    } catch (err) {
      log.warn({ err }, 'a malformed gateway message on the cluster bus was ignored');
      throw err;
    }
    if (message.op === 'probe') return '{}';
    if (message.op === 'cancel') {
      running.get(message.ticket)?.abort();
      return '{}';
    }
    return JSON.stringify(await runHere(message, local, running));
  });
  const handover = handOverOrphans(transport, nodeId, local, log);
  return {
    unsubscribe() {
      stopped = true;
      calls.unsubscribe();
      handover.unsubscribe();
      for (const sub of present.values()) sub.unsubscribe();
      present.clear();
    },
  };
}

/** A relayed call through this node's hub, or a handed-over one adopted by it; `notHeld` when it cannot be sent here. */
async function runHere(message: Extract<GatewayMessage, { op: 'call' | 'adopt' }>, local: LocalGateway, running: Map<string, AbortController>): Promise<GatewayAnswer> {
  if (!local.holds(message.workspaceId)) return { notHeld: true };
  const abort = new AbortController();
  running.set(message.ticket, abort);
  try {
    const { workspaceId, sessionId, tool, effectful } = message;
    if (message.op === 'call') return { ok: true, result: await local.call({ workspaceId, sessionId, tool, args: message.args, effectful }, abort.signal) };
    const { id, args, tokenId } = message;
    const adopted = local.adopt({ id, workspaceId, sessionId, tool, args, effectful, tokenId }, message.fromNode, abort.signal);
    return adopted ? { ok: true, result: await adopted } : { notHeld: true };
  } catch (err) {
    return failedAnswer(err);
  } finally {
    running.delete(message.ticket);
  }
}

/** Refused whole unless it is one of the four shapes (style: untrusted input is accepted whole or refused whole). */
function readMessage(data: Uint8Array): GatewayMessage {
  const v = JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown> | null;
  if (v === null || typeof v !== 'object') throw new Error('not a gateway message');
  if (v.op === 'probe') return { op: 'probe' };
  if (v.op === 'cancel' && typeof v.ticket === 'string') return { op: 'cancel', ticket: v.ticket };
  if (v.op === 'adopt') {
    const strings = [v.ticket, v.fromNode, v.id, v.workspaceId, v.sessionId, v.tool, v.args, v.tokenId];
    if (strings.every((x) => typeof x === 'string') && typeof v.effectful === 'boolean') return v as unknown as GatewayMessage;
    throw new Error('not a gateway message');
  }
  const fine =
    v.op === 'call' && typeof v.ticket === 'string' && typeof v.workspaceId === 'string' && typeof v.sessionId === 'string' &&
    typeof v.tool === 'string' && typeof v.effectful === 'boolean' && typeof v.args === 'object' && v.args !== null && !Array.isArray(v.args);
  if (!fine) throw new Error('not a gateway message');
  return v as unknown as GatewayMessage;
}
