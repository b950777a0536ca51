import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { asBerthError, type BerthError } from '../protocol/errors/index.js';
import { askHolder, NOT_HELD, whereHeld } from './gateway-ask.js';
import type { GatewayCall, LocalGateway } from './gateway-serve.js';
import { GATEWAY_UP_SUBJECT } from './subjects.js';
import type { BusSubscription, BusTransport } from './transport.js';

/** A sent call as it crosses to the node that carries it on: same id, same token, `args` as framed (src/gateway/host/handover.ts). */
export interface HandedCall extends Omit<GatewayCall, 'args'> {
  readonly id: string;
  readonly args: string;
  readonly tokenId: string;
}

/** A call this node sent whose channel closed, on its way to the node where A came back. */
export interface OrphanCall {
  readonly call: HandedCall;
  /** Aborted once its caller here is settled (cancelled, shut down). */
  readonly settledHere: AbortSignal;
  /** The other node did not take it: it waits here again. */
  back(): void;
  done(outcome: { readonly ok: true; readonly result: string } | { readonly ok: false; readonly error: BerthError }): void;
}

/**
 * The old holder's side of a channel that dropped with calls in flight (docs/cluster-bus.md,
 * gateway channels). On one daemon they are sent again, same id, when A reconnects; in a cluster
 * A may come back on another node. When a channel of the workspace comes up elsewhere (`up`), or
 * one closes here while another node holds one, each orphaned call goes to that node as an
 * `adopt`: it takes over the call's journal row (only from this node, so two nodes never both
 * send it), sends it with the same id, and the answer comes back here to the caller that waits.
 * A node that does not take it (no channel of the call's token) leaves it waiting here again.
 */
export function handOverOrphans(transport: BusTransport, nodeId: string, local: LocalGateway, log: Logger, probeMs?: number): BusSubscription {
  let stopped = false;
  /** Offers the call to each holder in turn until one takes it; none does: it waits here again. */
  const carry = async (holders: readonly string[], orphan: OrphanCall) => {
    const { call } = orphan;
    try {
      for (const holder of holders) {
        const message = { op: 'adopt' as const, ticket: randomUUID(), fromNode: nodeId, ...call };
        const answer = await askHolder(transport, holder, message, call, orphan.settledHere, probeMs);
        if (answer !== NOT_HELD) return orphan.done({ ok: true, result: answer });
        if (orphan.settledHere.aborted) return;
      }
      orphan.back();
    } catch (err) {
      orphan.done({ ok: false, error: asBerthError(err) });
    }
  };
  const handOver = async (workspaceId: string) => {
    if (stopped || !local.hasOrphans(workspaceId)) return;
    // Every other node holding a channel of it, oldest first, as the store lists them; else whoever answers `where`.
    const listed = (await local.holdersOf(workspaceId).catch(() => [] as readonly string[])).filter((n) => n !== nodeId);
    const where = listed.length > 0 ? undefined : await whereHeld(transport, workspaceId);
    const holders = where !== undefined && where !== nodeId ? [where] : listed;
    if (stopped || holders.length === 0) return;
    const orphans = local.takeOrphans(workspaceId, holders[0]!);
    if (orphans.length > 0) log.info({ workspaceId, holders, calls: orphans.length }, 'gateway calls in flight offered to the nodes A holds channels on');
    for (const orphan of orphans) void carry(holders, orphan);
  };
  const tryHandOver = (workspaceId: string) =>
    void handOver(workspaceId).catch((err: unknown) => log.warn({ err, workspaceId }, 'handing gateway calls to another node failed; they wait here'));
  local.watchChannels(tryHandOver);
  const up = transport.subscribe(GATEWAY_UP_SUBJECT, (data) => tryHandOver(Buffer.from(data).toString('utf8')));
  return {
    unsubscribe() {
      stopped = true;
      up.unsubscribe();
    },
  };
}
