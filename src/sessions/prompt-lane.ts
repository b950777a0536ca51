import type { ContentBlock } from '../agents/driver.js';
import type { Clock } from '../clock.js';
import { BerthError } from '../protocol/errors/index.js';
import type { PublishInput } from '../events/types.js';
import type { Logger } from '../log.js';
import { newPromptId, newRecordId } from './ids.js';
import { PromptQueue, promptText, type PromptEntry } from './prompt-queue.js';
import type { PromptRepository } from './records.js';
import type { PromptAccepted, TurnErrorInfo } from './session-init.js';
import type { WriteChain } from '../write-chain.js';

export interface SubmitOptions {
  readonly clientId?: string;
  readonly deadlineMs?: number;
  /** The id to run it under (a mid-turn message keeps its `messageId`); a fresh one when absent. */
  readonly promptId?: string;
  /** A mid-turn message no turn took, now run as a prompt of its own (sessions/mid-turn.ts). */
  readonly promoted?: boolean;
}

/** A prompt's one terminal: a stop reason, or an error. */
export type PromptTerminalInput = { stopReason: string } | { error: TurnErrorInfo };

/** What a session's prompt lane needs from the session that owns it. */
export interface PromptLanePorts {
  readonly sessionId: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly prompts: PromptRepository;
  /** The session's ordered writes: a prompt's settlement is recorded behind its turn's events. */
  readonly writes: WriteChain;
  readonly maxPending: number;
  /** The server's prompt deadline, or null for none. */
  readonly deadlineMs: number | null;
  /** The bus position a 202 reports: every event of the new prompt comes after it. */
  cursor(): { readonly lastEventId: number; readonly eventEpoch: string };
  publish(input: PublishInput): void;
  /** Runs one admitted prompt to its terminal (turn.ts). */
  runTurn(entry: PromptEntry): Promise<void>;
  /** Cancels the open interactions of a prompt (a deadline or a cancel ends them with it). */
  cancelInteractions(reason: 'deadline' | 'cancelled', promptId: string): void;
  isClosing(): boolean;
  /** Throws when the session admits no prompt now (it is closing, or a rewind is running). */
  admitting(): void;
  /** Told just before a failed prompt's `turn_error` is published. */
  failed(error: TurnErrorInfo): void;
  /** Told once per settled prompt, last: whether it had started running. */
  settled(ran: boolean, now: number): void;
  /** Told when the FIFO has drained. */
  idle(): void;
}

/**
 * One session's prompts (docs/client-api.md §6): admission into the FIFO, one turn at a
 * time, deadlines, cancel, and exactly one terminal event per prompt.
 */
export class PromptLane {
  private readonly queue: PromptQueue;
  private pumping = false;
  /** Prompts whose row is being written: they hold a place in the FIFO already. */
  private admitting = 0;
  /** Prompt rows being written now (`admitted`). */
  private readonly admissions = new Set<Promise<void>>();

  constructor(private readonly ports: PromptLanePorts) {
    this.queue = new PromptQueue(ports.sessionId, ports.maxPending);
  }

  /** Whether a prompt is being admitted (its row written) or in the FIFO: work the idle reaper must not cut short. */
  get busy(): boolean {
    return this.admitting > 0 || this.queue.size > 0;
  }

  get size(): number {
    return this.queue.size;
  }

  /** Admitted prompts not yet settled or removed, running first. */
  all(): readonly PromptEntry[] {
    return this.queue.all();
  }

  /**
   * Resolves once the rows being admitted are written, with the settlement of any refused on the way
   * submitted: a session closing meanwhile (a handover) stores that before its lease goes back.
   */
  admitted(): Promise<unknown> {
    return Promise.allSettled(this.admissions);
  }

  /** Stores the prompt's row; when the session closed (or a rewind began) meanwhile, settles it as removed and refuses. */
  private async admitRow(entry: PromptEntry, now: number): Promise<void> {
    const { ports } = this;
    // Nothing running, queued or being admitted: this prompt runs as soon as its row is stored, so
    // the row carries its start mark too, and the turn does not wait for a second write before its
    // first event (on PostgreSQL a round trip). Admissions complete in the order they began, so
    // none admitted after it can run first.
    const startsAtOnce = this.admitting === 0 && this.queue.size === 0;
    this.admitting++;
    try {
      await ports.prompts.admit({
        id: entry.promptId,
        sessionId: ports.sessionId,
        content: entry.content,
        originatorClientId: entry.originatorClientId ?? null,
        queuedAt: now,
        ...(startsAtOnce ? { startedAt: now } : {}),
      });
      if (startsAtOnce) entry.startStored = true;
    } finally {
      this.admitting--;
    }
    try {
      // Asked again: the session may have closed, or a rewind begun, while the row was written.
      ports.admitting();
    } catch (err) {
      // The prompt never joins the FIFO; its row says so.
      ports.writes.submitOrdered('prompt settle', () => ports.prompts.refused(entry.promptId, now, 'removed'));
      throw err;
    }
  }

  running(): PromptEntry | undefined {
    return this.queue.running();
  }

  /** Admits a prompt: its row is stored before this resolves (and so before the 202). */
  async submit(content: readonly ContentBlock[], opts: SubmitOptions): Promise<PromptAccepted> {
    const { ports } = this;
    ports.admitting();
    this.queue.checkRoom(this.admitting);
    const now = ports.clock.now();
    const configured = ports.deadlineMs;
    // docs/client-api.md §6.2: a request may shorten the server deadline, never create or extend one.
    const deadline = configured === null ? null : Math.min(configured, opts.deadlineMs ?? configured);
    const entry: PromptEntry = {
      promptId: opts.promptId ?? newPromptId(),
      content,
      text: promptText(content),
      originatorClientId: opts.clientId,
      queuedAt: now,
      deadlineAt: deadline === null ? null : now + deadline,
      waited: false,
      state: 'queued',
      settled: false,
    };
    // Captured before any event of this prompt exists: every event of the turn has a larger id.
    const cursor = ports.cursor();
    const accepted: PromptAccepted = { promptId: entry.promptId, lastEventId: cursor.lastEventId, eventEpoch: cursor.eventEpoch };
    const admission = this.admitRow(entry, now);
    this.admissions.add(admission);
    try {
      await admission;
    } finally {
      this.admissions.delete(admission);
    }
    const busy = this.queue.size > 0;
    this.queue.push(entry);
    // A mid-turn message run as a prompt was announced as pending when it was typed: it gets the started and completed events.
    if (opts.promoted) entry.waited = true;
    if (deadline !== null) {
      entry.deadlineTimer = setTimeout(() => this.expire(entry), deadline);
      entry.deadlineTimer.unref?.();
    }
    if (busy && !opts.promoted) {
      entry.waited = true;
      ports.publish({
        type: 'pending_prompt_added',
        promptId: entry.promptId,
        originatorClientId: opts.clientId,
        data: { sessionId: ports.sessionId, promptId: entry.promptId, text: entry.text, queuedAt: now },
      });
    }
    // The turn starts after the 202 is on its way (a microtask would run the turn's first
    // synchronous stretch before the reply is written); the FIFO keeps one turn at a time.
    setImmediate(() => void this.pump());
    return accepted;
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    const { ports } = this;
    this.pumping = true;
    try {
      for (let entry = this.queue.nextQueued(); entry && !ports.isClosing(); entry = this.queue.nextQueued()) {
        try {
          await ports.runTurn(entry);
        } catch (err) {
          // The turn settles every failure of its own; this is for the store or bus failing
          // around it. The prompt still gets its one terminal event and the FIFO moves on.
          ports.log.error({ err, sessionId: ports.sessionId, promptId: entry.promptId }, 'prompt failed outside its turn');
          if (!ports.isClosing()) {
            this.settle(entry, { error: { message: 'The daemon failed to run this prompt', code: 'internal_error' } });
          }
        }
        this.queue.remove(entry);
      }
    } finally {
      this.pumping = false;
    }
    if (!ports.isClosing() && this.queue.size === 0) ports.idle();
  }

  /** Publishes a prompt's one terminal event and settles it everywhere (never twice). */
  settle(entry: PromptEntry, terminal: PromptTerminalInput, extra: Record<string, unknown> = {}): void {
    if (entry.settled) return;
    const { ports } = this;
    entry.settled = true;
    if (entry.deadlineTimer) clearTimeout(entry.deadlineTimer);
    const now = ports.clock.now();
    const base = { sessionId: ports.sessionId, promptId: entry.promptId };
    const stamp = { promptId: entry.promptId, originatorClientId: entry.originatorClientId };
    if ('stopReason' in terminal) {
      // docs/client-api.md §5.13: a completed turn is a point to rewind to (the SDK keeps it for end_turn only).
      const branchPoint = terminal.stopReason === 'end_turn' ? { branchPoint: { assistantRecordUuid: newRecordId(), checkpointUuid: newRecordId() } } : {};
      ports.publish({ type: 'turn_complete', ...stamp, data: { ...base, stopReason: terminal.stopReason, ...branchPoint, ...extra } });
      const cancelled = terminal.stopReason === 'cancelled';
      const settled = cancelled ? 'cancelled' : 'completed';
      ports.writes.submitOrdered('prompt settle', () => ports.prompts.settle(entry.promptId, now, settled, terminal.stopReason, null));
    } else {
      const { message, code, errorKind } = terminal.error;
      ports.failed(terminal.error);
      ports.publish({
        type: 'turn_error',
        ...stamp,
        data: { ...base, message, ...(code ? { code } : {}), ...(errorKind ? { errorKind } : {}), ...extra },
      });
      ports.writes.submitOrdered('prompt settle', () => ports.prompts.settle(entry.promptId, now, 'error', null, code ?? null));
    }
    if (entry.waited) {
      ports.publish({
        type: 'pending_prompt_completed',
        ...stamp,
        data: { ...base, state: entry.state === 'running' ? 'completed' : 'removed' },
      });
    }
    if (entry.state === 'queued') this.queue.remove(entry);
    ports.settled(entry.state === 'running', now);
  }

  private expire(entry: PromptEntry): void {
    if (entry.settled) return;
    entry.abort?.abort(new BerthError('prompt_deadline_exceeded'));
    this.ports.cancelInteractions('deadline', entry.promptId);
    this.settle(entry, {
      error: {
        message: 'The prompt deadline passed before the turn finished',
        code: 'prompt_deadline_exceeded',
        errorKind: 'prompt_deadline_exceeded',
      },
    });
  }

  /**
   * Withdraws one prompt (docs/client-api.md §6.5): a queued one never runs — it ends with
   * `turn_complete` `cancelled` and `pending_prompt_completed` `removed`; the running one is
   * cancelled as §6.3. 404 `prompt_not_found` when no unsettled prompt has this id.
   */
  private withdraw(promptId: string, clientId: string | undefined): void {
    const entry = this.queue.all().find((e) => e.promptId === promptId && !e.settled);
    if (!entry) throw new BerthError('prompt_not_found', undefined, { sessionId: this.ports.sessionId, promptId });
    if (entry.state === 'running') return this.cancel(clientId);
    this.ports.publish({ type: 'prompt_cancelled', promptId, originatorClientId: clientId, data: { sessionId: this.ports.sessionId } });
    this.settle(entry, { stopReason: 'cancelled' });
  }

  /** Cancels only the running prompt (docs/client-api.md §6.3); queued prompts stay and run afterwards. With `promptId`, `withdraw`. */
  cancel(clientId: string | undefined, promptId?: string): void {
    if (promptId !== undefined) return this.withdraw(promptId, clientId);
    const running = this.queue.running();
    this.ports.publish({
      type: 'prompt_cancelled',
      ...(running ? { promptId: running.promptId } : {}),
      originatorClientId: clientId,
      data: { sessionId: this.ports.sessionId },
    });
    if (!running || running.settled) return;
    running.cancelRequestedAt = this.ports.clock.now();
    this.ports.cancelInteractions('cancelled', running.promptId);
    running.abort?.abort(new BerthError('session_busy', 'cancelled'));
  }

  /** Ends every pending or running prompt with `turn_error` of this code (the session is closing). */
  endAll(code: 'session_closed' | 'daemon_shutdown', reason: string): void {
    for (const entry of [...this.queue.all()]) {
      entry.abort?.abort(new BerthError(code));
      this.settle(entry, { error: { message: `The session was closed (${reason})`, code } });
    }
  }
}
