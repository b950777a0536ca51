import type { ContentBlock } from '../agents/driver.js';
import { BerthError } from '../protocol/errors/index.js';
import type { EventEnvelope, PublishInput } from '../events/types.js';
import type { Workspace } from '../workspace/types.js';
import { guardFor, modesState, type ApprovalMode } from './approval.js';
import { ClientRegistry } from './clients.js';
import { newPromptId } from './ids.js';
import { interactionEventsOf } from './interaction-events.js';
import { InteractionBook } from './interactions.js';
import type { SessionPr } from './metadata.js';
import { PromptQueue, promptText, type PromptEntry } from './prompt-queue.js';
import type { SessionBus } from './ports.js';
import type { PromptAccepted, SessionInit, SessionServices, TurnErrorInfo } from './session-init.js';
import { runPrompt } from './turn.js';

export type { PromptAccepted, SessionInit, SessionServices, TurnErrorInfo };

/**
 * One live conversation (a "tab"): its clients, prompt FIFO, open
 * interactions, metadata and the driver that answers it. Every event goes
 * through `publish`, which stamps the bus id and feeds the transcript.
 * Metadata and model changes are in settings.ts; how interactions show on the
 * stream is in interaction-events.ts.
 */
export class Session {
  readonly id: string;
  readonly workspace: Workspace;
  readonly createdAt: number;
  readonly init: SessionInit;
  readonly clients: ClientRegistry;
  readonly queue: PromptQueue;
  readonly interactions: InteractionBook;
  approvalMode: ApprovalMode;
  displayName: string | null;
  prs: SessionPr[];
  turnError: TurnErrorInfo | null = null;
  /** `allow_always` / `reject_always` answers, per tool name, for the rest of this session (spec §9). */
  readonly rememberedChoices = new Map<string, 'allow' | 'reject'>();
  /** Activity watermark: advanced once per settled turn (spec §5.8 `updatedAt`). */
  updatedAt: number | null = null;
  lastActivityAt: number;
  private closing = false;
  private pumping = false;

  constructor(
    init: SessionInit,
    readonly services: SessionServices,
  ) {
    this.init = init;
    this.id = init.id;
    this.workspace = init.workspace;
    this.createdAt = init.createdAt;
    this.approvalMode = init.approvalMode;
    this.displayName = init.displayName;
    this.prs = [...init.prs];
    this.lastActivityAt = init.createdAt;
    this.clients = new ClientRegistry(init.id);
    this.queue = new PromptQueue(init.id, services.config.maxPendingPromptsPerSession);
    this.interactions = new InteractionBook(interactionEventsOf(this), services.clock, {
      ms: services.config.permissionTimeoutMs,
      outcome: services.config.permissionTimeoutOutcome,
    });
  }

  get closed(): boolean {
    return this.closing;
  }

  get bus(): SessionBus {
    return this.services.bus;
  }

  get guard() {
    return guardFor(this.approvalMode);
  }

  get hasActivePrompt(): boolean {
    return this.queue.size > 0;
  }

  /**
   * Publishes one event: the bus assigns its id, the transcript records what belongs there.
   * After the terminal `session_closed` the bus is shut and late output is dropped.
   */
  publish(input: PublishInput): EventEnvelope | undefined {
    if (this.services.bus.isClosed) return undefined;
    const envelope = this.services.bus.publish(input);
    this.services.transcript.observe(envelope);
    return envelope;
  }

  touch(): void {
    this.lastActivityAt = this.services.clock.now();
  }

  /** Throws 404 `session_not_found` once the session is closing (a closed session answers like an unknown one). */
  assertOpen(): void {
    if (this.closing) {
      throw new BerthError('session_not_found', `No session with id "${this.id}"`, { sessionId: this.id });
    }
  }

  // ── prompts (spec §6) ──────────────────────────────────────────────────────

  submit(content: readonly ContentBlock[], opts: { clientId?: string; deadlineMs?: number }): PromptAccepted {
    this.assertOpen();
    this.queue.checkRoom();
    const now = this.services.clock.now();
    const configured = this.services.config.promptDeadlineMs;
    // spec §6.2: a request may shorten the server deadline, never create or extend one.
    const deadline = configured === null ? null : Math.min(configured, opts.deadlineMs ?? configured);
    const entry: PromptEntry = {
      promptId: newPromptId(),
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
    const accepted: PromptAccepted = {
      promptId: entry.promptId,
      lastEventId: this.bus.lastEventId,
      eventEpoch: this.bus.epoch,
    };
    this.services.prompts.admit({
      id: entry.promptId,
      sessionId: this.id,
      content,
      originatorClientId: opts.clientId ?? null,
      queuedAt: now,
    });
    const busy = this.queue.size > 0;
    this.queue.push(entry);
    this.touch();
    if (deadline !== null) {
      entry.deadlineTimer = setTimeout(() => this.expire(entry), deadline);
      entry.deadlineTimer.unref?.();
    }
    if (busy) {
      entry.waited = true;
      this.publish({
        type: 'pending_prompt_added',
        promptId: entry.promptId,
        originatorClientId: opts.clientId,
        data: { sessionId: this.id, promptId: entry.promptId, text: entry.text, queuedAt: now },
      });
    }
    // The turn starts after the 202 is on its way (a microtask would run the turn's first
    // synchronous stretch before the reply is written); the FIFO keeps one turn at a time.
    setImmediate(() => void this.pump());
    return accepted;
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (let entry = this.queue.nextQueued(); entry && !this.closing; entry = this.queue.nextQueued()) {
        try {
          await runPrompt(this, entry);
        } catch (err) {
          // runPrompt settles every failure of the turn itself; this is for the store or bus failing
          // around it. The prompt still gets its one terminal event and the FIFO moves on.
          this.services.log.error({ err, sessionId: this.id, promptId: entry.promptId }, 'prompt failed outside its turn');
          if (!this.closing) {
            this.settle(entry, { error: { message: 'The daemon failed to run this prompt', code: 'internal_error' } });
          }
        }
        this.queue.remove(entry);
      }
    } finally {
      this.pumping = false;
    }
    if (!this.closing && this.queue.size === 0) this.services.onIdle?.(this);
  }

  /** Publishes a prompt's one terminal event and settles it everywhere (never twice). */
  settle(
    entry: PromptEntry,
    terminal: { stopReason: string } | { error: TurnErrorInfo },
    extra: Record<string, unknown> = {},
  ): void {
    if (entry.settled) return;
    entry.settled = true;
    if (entry.deadlineTimer) clearTimeout(entry.deadlineTimer);
    const now = this.services.clock.now();
    const base = { sessionId: this.id, promptId: entry.promptId };
    if ('stopReason' in terminal) {
      this.publish({
        type: 'turn_complete',
        promptId: entry.promptId,
        originatorClientId: entry.originatorClientId,
        data: { ...base, stopReason: terminal.stopReason, ...extra },
      });
      const cancelled = terminal.stopReason === 'cancelled';
      this.services.prompts.settle(entry.promptId, now, cancelled ? 'cancelled' : 'completed', terminal.stopReason, null);
    } else {
      const { message, code, errorKind } = terminal.error;
      this.turnError = terminal.error;
      this.publish({
        type: 'turn_error',
        promptId: entry.promptId,
        originatorClientId: entry.originatorClientId,
        data: { ...base, message, ...(code ? { code } : {}), ...(errorKind ? { errorKind } : {}), ...extra },
      });
      this.services.prompts.settle(entry.promptId, now, 'error', null, code ?? null);
    }
    if (entry.waited) {
      this.publish({
        type: 'pending_prompt_completed',
        promptId: entry.promptId,
        originatorClientId: entry.originatorClientId,
        data: { ...base, state: entry.state === 'running' ? 'completed' : 'removed' },
      });
    }
    if (entry.state === 'running') this.updatedAt = Math.max(now, (this.updatedAt ?? 0) + 1);
    if (entry.state === 'queued') this.queue.remove(entry);
    this.touch();
  }

  private expire(entry: PromptEntry): void {
    if (entry.settled) return;
    entry.abort?.abort(new BerthError('prompt_deadline_exceeded'));
    this.interactions.cancelAll('deadline', entry.promptId);
    this.settle(entry, {
      error: {
        message: 'The prompt deadline passed before the turn finished',
        code: 'prompt_deadline_exceeded',
        errorKind: 'prompt_deadline_exceeded',
      },
    });
  }

  /** Cancels only the running prompt (spec §6.3); queued prompts stay and run afterwards. */
  cancel(clientId: string | undefined): void {
    this.assertOpen();
    const running = this.queue.running();
    this.publish({
      type: 'prompt_cancelled',
      ...(running ? { promptId: running.promptId } : {}),
      originatorClientId: clientId,
      data: { sessionId: this.id },
    });
    if (!running || running.settled) return;
    running.cancelRequestedAt = this.services.clock.now();
    this.interactions.cancelAll('cancelled', running.promptId);
    running.abort?.abort(new BerthError('session_busy', 'cancelled'));
  }

  /** `SessionState` (spec §5.9): models, modes and config options as the driver and mode say. */
  state(): Record<string, unknown> {
    const driverState = this.services.driver.state();
    return {
      models: driverState.models,
      modes: modesState(this.approvalMode),
      configOptions: [],
      _meta: { harness: this.services.driver.harness },
    };
  }

  /** The `session_snapshot` payload (spec §7.6): both keys always present, string or null. */
  snapshot(): Record<string, unknown> {
    return {
      sessionId: this.id,
      currentModelId: this.services.driver.state().models.currentModelId,
      currentApprovalMode: this.approvalMode,
      recordingDegraded: this.services.transcript.recordingDegraded,
    };
  }

  // ── teardown ───────────────────────────────────────────────────────────────

  /**
   * Closes the live session: every pending or running prompt ends with
   * `turn_error` (code `session_closed` or `daemon_shutdown`), open requests
   * resolve as cancelled, then one terminal `session_closed` ends every stream.
   * The persisted transcript stays. Idempotent.
   */
  close(reason: string, closedBy: string | null, code: 'session_closed' | 'daemon_shutdown' = 'session_closed'): void {
    if (this.closing) return;
    this.closing = true;
    this.interactions.cancelAll(reason === 'daemon_shutdown' ? 'daemon_shutdown' : 'closed');
    for (const entry of [...this.queue.all()]) {
      entry.abort?.abort(new BerthError(code));
      this.settle(entry, { error: { message: `The session was closed (${reason})`, code } });
    }
    this.publish({
      type: 'session_closed',
      originatorClientId: closedBy ?? undefined,
      data: { sessionId: this.id, reason, closedBy },
    });
    this.services.transcript.flush();
    const now = this.services.clock.now();
    this.services.sessions.update(this.id, { closedAt: now, closeReason: reason }, now);
    this.services.bus.close();
    this.services.driver.dispose();
    this.services.onClosed(this);
  }
}
