import type { CallSettlement, OutgoingCall } from './outgoing-call.js';
import { sentAndLost } from './lost-call.js';
import { pendingCall, type CallFields } from './call-making.js';
import { WorkspaceLine } from './workspace-line.js';

/**
 * A sent call handed from one node of a cluster to another (docs/cluster-bus.md, gateway
 * channels): its channel closed on the first node and A came back on the second. The same id
 * goes out again there, under the same token, so A's own journal answers it without running it twice.
 */
export interface HandedCall extends CallFields {
  readonly tokenId: string;
}

/** An orphaned call on its way to another node, as the node that sent it first keeps it. */
export interface OrphanCall {
  readonly call: HandedCall;
  /** Aborted once its caller here is settled (cancelled, shut down): the other node need not wait for A. */
  readonly settledHere: AbortSignal;
  /** The other node did not take it (nothing was sent there): it waits here again for a channel of its token. */
  back(): void;
  /** The other node's outcome reaches the caller. */
  done(outcome: CallSettlement): void;
}

/** A workspace's line that can hand its orphaned calls to another node, and adopt another node's. */
export class HandoverLine extends WorkspaceLine {
  /** Sent calls whose channel closed and that no other node carries yet. */
  orphans(): OutgoingCall[] {
    return [...this.inflight.values()].filter((c) => c.channel === null && c.handedTo === null && !c.abandoned);
  }

  /** Another node carries `call` now; with null, that node did not take it and it waits here again. */
  handTo(call: OutgoingCall, node: string | null): void {
    if (this.inflight.get(call.id) !== call) return;
    call.handedTo = node;
    if (node !== null) return this.disarm(call);
    const sibling = this.channels.find((c) => c.tokenId === call.tokenId);
    if (sibling) this.resend(call, sibling);
    else this.arm(call);
  }

  /** Settles a call from outside the line (the node it was handed to answered), freeing its slot. */
  settleFromAfar(call: OutgoingCall, outcome: CallSettlement): void {
    if (this.inflight.get(call.id) === call) this.release(call);
    call.settle(outcome);
    this.pump();
  }

  /**
   * Sends another node's call again here, same id, on a channel of its token, once its journal
   * row names this node (taken only from `fromNode`, so two nodes never both send it); false when
   * no channel of its token is open here. It counts in this line's in-flight calls until answered.
   */
  adopt(call: OutgoingCall, fromNode: string): boolean {
    const channel = this.channels.find((c) => c.tokenId === call.tokenId);
    if (!channel) return false;
    this.bind(call, channel);
    if (!call.effectful) {
      channel.link.send(call.frame);
      return true;
    }
    const lost = (why: string) => this.settleFromAfar(call, { ok: false, error: sentAndLost(call, why) });
    this.deps.writes.run(() => this.deps.journal.adopt(call.id, fromNode)).then(
      (mine) => (mine ? this.sendOnce(call, channel) : lost('another node carries it, or it settled, so it was not sent again')),
      (err: unknown) => {
        this.deps.log.error({ err, callId: call.id }, 'gateway journal write failed');
        lost('its journal row could not be taken over');
      },
    );
    return true;
  }
}

/** Marks every orphaned call of `line` as carried by `toNode` and gives the handles that settle it. */
export function takeOrphans(line: HandoverLine, toNode: string): OrphanCall[] {
  return line.orphans().map((call) => {
    line.handTo(call, toNode);
    const settledHere = new AbortController();
    const settle = call.settle;
    call.settle = (outcome) => {
      settledHere.abort();
      settle(outcome);
    };
    const { id, sessionId, tool, args, effectful } = call;
    return {
      call: { id, workspaceId: line.workspaceId, sessionId, tool, args, effectful, tokenId: call.tokenId! },
      settledHere: settledHere.signal,
      back: () => line.handTo(call, null),
      done: (outcome) => line.settleFromAfar(call, outcome),
    };
  });
}

/** Another node's call adopted by `line`: resolves with A's result; undefined when no channel of its token is open. */
export function adoptCall(line: HandoverLine, handed: HandedCall, frame: string, fromNode: string, signal: AbortSignal): Promise<string> | undefined {
  const { call, result } = pendingCall({ ...handed, frame }, signal, (c) => line.cancel(c));
  if (line.adopt(call, fromNode)) return result;
  // Never sent here and nobody waits on `result`: settling only lets go of the abort listener.
  call.settle({ ok: true, result: '' });
  return undefined;
}
