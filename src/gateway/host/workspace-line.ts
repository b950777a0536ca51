import type { Clock } from '../../clock.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Logger } from '../../log.js';
import type { GatewayCallRepository, GatewayCallStart } from './call-journal.js';
import { CLOSE, type ResultFrame } from '../../protocol/gateway/frames.js';
import { sentAndLost } from './lost-call.js';
import { recordStrayResult } from './stray-result.js';
import type { Channel, OutgoingCall } from './outgoing-call.js';
import type { WriteChain } from '../../write-chain.js';
import type { JournalRows } from './journal-rows.js';

export interface LineDeps {
  readonly journal: GatewayCallRepository;
  /** The hub's journal writes, in order (a restart's abandonment first). */
  readonly writes: WriteChain;
  /** Where the rows of sent and answered write/critical calls gather until they are written together. */
  readonly rows: JournalRows;
  /** A write/critical call's `sent` row is stored before its frame leaves (a cluster: another node may adopt it), else batched. */
  readonly rowBeforeFrame: boolean;
  readonly clock: Clock;
  readonly log: Logger;
  /** docs/gateway.md `limits.inFlightCallsPerWorkspace`. */
  readonly maxInflight: number;
  /** How long a call waits while no suitable channel is up (Config.channelWaitMs). */
  readonly waitMs: number;
}

/**
 * The calls of one remote workspace and the channels that carry them.
 *
 * - At most `maxInflight` calls are sent and unanswered at once; the rest
 *   wait in submission order (docs/gateway.md limits).
 * - A new call goes to the open channel with the fewest unanswered calls
 *   (ties: the longest open), so parallel channels share the work.
 * - A write/critical call is journaled (`sent`): in a cluster before its
 *   first frame leaves, else with the batch its frame is in (docs/gateway.md,
 *   B's journal), and before any re-send. When its
 *   channel closes it stays in flight and is sent again, same id, on the next
 *   channel of the same token — only that owner's receipts can tell whether
 *   it ran, so it never goes to another owner.
 * - While no channel (for a waiting call) or no channel of its token (for a
 *   sent one) is up, a call waits at most `waitMs`: then a call never sent
 *   fails `channel_unavailable`, and a sent write/critical call is reported
 *   `uncertain_effect` (it may have run).
 * - A's result settles the call once; a duplicate result finds nothing in
 *   flight and is ignored.
 */
export class WorkspaceLine {
  protected readonly channels: Channel[] = [];
  private readonly waiting: OutgoingCall[] = [];
  protected readonly inflight = new Map<string, OutgoingCall>();

  constructor(
    readonly workspaceId: string,
    protected readonly deps: LineDeps,
  ) {}

  get waitingCount(): number {
    return this.waiting.length;
  }

  get channelCount(): number {
    return this.channels.length;
  }

  get inflightCount(): number {
    return this.inflight.size;
  }

  submit(call: OutgoingCall): void {
    this.waiting.push(call);
    if (this.channels.length === 0) this.arm(call);
    this.pump();
  }

  attach(channel: Channel): void {
    this.channels.push(channel);
    for (const call of this.inflight.values()) {
      if (call.channel === null && call.handedTo === null && call.tokenId === channel.tokenId) this.resend(call, channel);
    }
    for (const call of this.waiting) this.disarm(call);
    this.pump();
  }

  detach(channel: Channel): void {
    const at = this.channels.indexOf(channel);
    if (at < 0) return;
    this.channels.splice(at, 1);
    for (const id of channel.calls) {
      const call = this.inflight.get(id);
      if (!call) continue;
      call.channel = null;
      if (call.abandoned) {
        // Nobody waits for it and nobody will hear its result: the slot is free again.
        this.inflight.delete(id);
        continue;
      }
      const sibling = this.channels.find((c) => c.tokenId === call.tokenId);
      if (sibling) this.resend(call, sibling);
      else this.arm(call);
    }
    channel.calls.clear();
    if (this.channels.length === 0) for (const call of this.waiting) this.arm(call);
    this.pump();
  }

  /** A's `result` frame on `channel`. */
  answer(channel: Channel, frame: ResultFrame): void {
    const call = this.inflight.get(frame.id);
    if (!call || call.channel !== channel) {
      // Its rows first, so the stray is told from a duplicate by what they say.
      this.deps.rows.flush();
      recordStrayResult(this.deps, this.workspaceId, channel, frame);
      return;
    }
    if (frame.sessionId !== call.sessionId) {
      // Refused whole: a result naming another session is not this call's answer.
      this.deps.log.warn({ callId: frame.id, channelId: channel.id }, 'gateway result names another session');
      channel.link.close(CLOSE.policyViolation, 'result names another session');
      return;
    }
    this.release(call);
    if (!call.effectful) {
      if (!call.abandoned) call.settle({ ok: true, result: frame.result });
      return this.pump();
    }
    // The caller is told at once and the row follows with the others of its batch (docs/gateway.md,
    // B's journal): the caller's own receipt, written before its outcome goes anywhere, is what keeps
    // the effect once-only; this row only closes the channel's record of the call.
    if (!call.abandoned) call.settle({ ok: true, result: frame.result });
    this.deps.rows.answered({ id: call.id, result: frame.result, at: this.deps.clock.now() });
    this.pump();
  }

  /**
   * The caller gave up (its turn was cancelled). A waiting call simply goes;
   * a sent one may still run on A, so a write/critical call is reported
   * `uncertain_effect` and keeps its slot until A answers or the channel drops.
   */
  cancel(call: OutgoingCall): void {
    const queued = this.waiting.indexOf(call);
    if (queued >= 0) {
      this.waiting.splice(queued, 1);
      this.disarm(call);
      call.settle({ ok: false, error: new BerthError('tool_cancelled', `The call to ${call.tool} was cancelled before it was sent`) });
      return;
    }
    if (!this.inflight.has(call.id) || call.abandoned) return;
    call.abandoned = true;
    if (call.effectful) this.abandon(call.id, this.deps.clock.now());
    call.settle({ ok: false, error: sentAndLost(call, 'it was cancelled after it was sent to the owner') });
    if (call.channel === null) this.release(call);
    this.pump();
  }

  /**
   * Daemon shutdown: every caller is told and every channel closed. A call
   * never sent fails `daemon_shutdown`; a sent one is abandoned (not sent again
   * by the next run) and a write/critical one reported `uncertain_effect`.
   */
  shutdown(): void {
    const error = new BerthError('daemon_shutdown', 'The daemon is shutting down');
    for (const call of this.waiting.splice(0)) {
      this.disarm(call);
      call.settle({ ok: false, error });
    }
    const now = this.deps.clock.now();
    for (const call of this.inflight.values()) {
      this.disarm(call);
      if (call.effectful) this.abandon(call.id, now);
      call.settle({ ok: false, error: sentAndLost(call, 'the daemon shut down before the owner answered') });
    }
    this.inflight.clear();
    for (const channel of this.channels.splice(0)) channel.link.close(CLOSE.goingAway, 'daemon shutting down');
  }

  /** Fills free slots from the head of the queue. */
  protected pump(): void {
    while (this.waiting.length > 0 && this.inflight.size < this.deps.maxInflight && this.channels.length > 0) {
      const call = this.waiting.shift()!;
      this.disarm(call);
      const channel = this.pickChannel();
      call.tokenId = channel.tokenId;
      this.bind(call, channel);
      // A read has no effect to settle after a crash, so it is not journaled; on a daemon alone, a
      // write/critical call's `sent` row goes with the batch its frame is in (docs/gateway.md, B's journal).
      if (!call.effectful || !this.deps.rowBeforeFrame) {
        this.sendInOrder(call, channel);
        if (call.effectful) this.deps.rows.sent(this.startOf(call, channel));
        continue;
      }
      // Journaled before the frame leaves, so another node of the cluster can adopt it.
      this.deps.writes.run(() => this.deps.journal.insert(this.startOf(call, channel))).then(
        () => this.sendOnce(call, channel),
        (err: unknown) => {
          this.deps.log.error({ err, callId: call.id }, 'gateway journal write failed');
          if (this.inflight.get(call.id) === call) this.release(call);
          call.settle({ ok: false, error: new BerthError('internal_error', 'The call could not be journaled, so it was not sent') });
          this.pump();
        },
      );
    }
  }

  /**
   * Sends a call without a row of its own to wait for, yet behind the frames before it (a call waiting
   * for its row); with nothing queued, now, without a round of promises. Straight to the link, not through
   * sendOnce: a waiting call cannot have been given up, and sendOnce's pump must not run inside pump's loop.
   */
  private sendInOrder(call: OutgoingCall, channel: Channel): void {
    if (this.deps.writes.idle) channel.link.send(call.frame);
    else void this.deps.writes.run(async () => undefined).then(() => this.sendOnce(call, channel));
  }

  private startOf(call: OutgoingCall, channel: Channel): GatewayCallStart {
    return { id: call.id, workspaceId: this.workspaceId, sessionId: call.sessionId, tool: call.tool, args: call.args, tokenId: channel.tokenId, sentAt: this.deps.clock.now() };
  }

  /** Sends a call that waited for the journal unless, meanwhile, it moved to another channel, was given up or shut down. */
  protected sendOnce(call: OutgoingCall, channel: Channel): void {
    if (this.inflight.get(call.id) !== call || call.channel !== channel) return;
    if (!call.abandoned) return channel.link.send(call.frame);
    // Given up before it left: nothing can answer it, so its slot is free.
    this.release(call);
    this.pump();
  }

  protected resend(call: OutgoingCall, channel: Channel): void {
    this.disarm(call);
    this.bind(call, channel);
    if (!call.effectful) return channel.link.send(call.frame);
    // Behind the call's own `sent` row in the journal's order, so the frame never leaves before it.
    this.deps.rows.flush();
    const send = () => this.sendOnce(call, channel);
    this.deps.writes.run(() => this.deps.journal.resent(call.id)).then(send, (err: unknown) => {
      this.deps.log.error({ err, callId: call.id }, 'gateway journal write failed');
      send();
    });
  }

  /** Records that nobody waits for a call any more (in the journal's order; a failure is logged). */
  private abandon(id: string, at: number): void {
    this.deps.rows.flush();
    this.deps.writes.submit('gateway journal write', () => this.deps.journal.abandon(id, at));
  }

  protected bind(call: OutgoingCall, channel: Channel): void {
    call.channel = channel;
    channel.calls.add(call.id);
    this.inflight.set(call.id, call);
  }

  protected release(call: OutgoingCall): void {
    this.disarm(call);
    call.channel?.calls.delete(call.id);
    call.channel = null;
    this.inflight.delete(call.id);
  }

  private pickChannel(): Channel {
    let best = this.channels[0]!;
    for (const c of this.channels) {
      if (c.calls.size < best.calls.size || (c.calls.size === best.calls.size && c.seq < best.seq)) best = c;
    }
    return best;
  }

  protected arm(call: OutgoingCall): void {
    if (call.timer !== undefined) return;
    call.timer = setTimeout(() => this.expire(call), this.deps.waitMs);
  }

  protected disarm(call: OutgoingCall): void {
    if (call.timer === undefined) return;
    clearTimeout(call.timer);
    call.timer = undefined;
  }

  private expire(call: OutgoingCall): void {
    call.timer = undefined;
    const queued = this.waiting.indexOf(call);
    if (queued >= 0) {
      this.waiting.splice(queued, 1);
      call.settle({
        ok: false,
        error: new BerthError('channel_unavailable', `No gateway channel for workspace ${this.workspaceId} came up within ${this.deps.waitMs} ms`, {
          workspaceId: this.workspaceId,
        }),
      });
      return;
    }
    if (!this.inflight.has(call.id) || call.channel !== null) return;
    if (call.effectful) this.abandon(call.id, this.deps.clock.now());
    this.release(call);
    call.settle({ ok: false, error: sentAndLost(call, `its owner did not reconnect within ${this.deps.waitMs} ms`) });
    this.pump();
  }

}
