import type { AgentExit, ContentBlock, DriverToolCall, ModelInfo } from '../agents/driver.js';
import type { EventEnvelope, PublishInput } from '../events/types.js';
import type { Policy, ToolDefinition, ToolOutcome } from '../tools/types.js';
import type { Workspace } from '../workspace/types.js';
import { guardFor, type ApprovalMode } from './approval.js';
import { ClientRegistry } from './clients.js';
import { interactionEventsOf } from './interaction-events.js';
import { InteractionBook } from './interactions.js';
import type { SessionPr } from './metadata.js';
import { PromptLane, type SubmitOptions } from './prompt-lane.js';
import type { PromptEntry } from './prompt-queue.js';
import type { SessionBus } from './ports.js';
import type { RewindResult, RewindTarget } from './rewind.js';
import type { PromptAccepted, SessionInit, TurnErrorInfo } from './session-init.js';
import { SessionRowWriter } from './session-row.js';
import { SessionSettings, type SessionMetadata } from './settings.js';
import { runPrompt, type TurnPorts } from './turn.js';
import { turnPortsOf } from './session-ports.js';
import { UsageMeter } from './usage.js';
import { PendingContext, type RestoredContext } from './restored-context.js';
import type { SessionServices } from './session-services.js';
import { callFromOutside, type OutsideCaller } from './outside-call.js';
import { closedSessionError } from './closed-session.js';
import { MidTurnQueue, promoteLeftovers } from './mid-turn.js';

export type { PromptAccepted, SessionInit, SessionServices, TurnErrorInfo };

/**
 * One live conversation (a "tab"): its clients, prompt FIFO, open interactions, settings and the
 * driver that answers it. It owns its state and stored row: others ask through its methods and
 * getters, never write its fields. Every event goes through `publish` (bus id, then transcript).
 */
export class Session {
  readonly id: string;
  readonly workspace: Workspace;
  readonly createdAt: number;
  readonly init: SessionInit;
  readonly clients: ClientRegistry;
  readonly interactions: InteractionBook;
  readonly midTurn: MidTurnQueue;
  private lastTurnError: TurnErrorInfo | null = null;
  private readonly meter = new UsageMeter();
  private readonly pendingContext = new PendingContext(({ history, usage }) => {
    this.services.driver.restore(history);
    if (usage) this.meter.restore(usage);
  });
  /** Activity watermark: advanced once per settled turn (docs/client-api.md §5.8 `updatedAt`). */
  private settledAt: number | null = null;
  private activityAt: number;
  /** Why it closes, once it does (null while open): a session handed over answers differently from one closed for good. */
  private closedFor: string | null = null;
  private readonly row: SessionRowWriter;
  private readonly settings: SessionSettings;
  private readonly lane: PromptLane;
  private readonly ports: TurnPorts;

  constructor(
    init: SessionInit,
    private readonly services: SessionServices,
  ) {
    const { clock, config } = services;
    this.init = init;
    this.id = init.id;
    this.workspace = init.workspace;
    this.createdAt = init.createdAt;
    this.activityAt = init.createdAt;
    this.clients = new ClientRegistry(init.id);
    const publish = (input: PublishInput) => void this.publish(input);
    this.interactions = new InteractionBook(interactionEventsOf(init.id, publish), clock, { ms: config.permissionTimeoutMs, outcome: config.permissionTimeoutOutcome });
    this.midTurn = new MidTurnQueue({ sessionId: init.id, active: () => this.lane.busy, publish, clock });
    this.row = new SessionRowWriter(init.id, services.sessions, clock, services.writes);
    this.settings = new SessionSettings({ sessionId: init.id, row: this.row, driver: services.driver, publish }, init);
    const turn = (this.ports = turnPortsOf(this, services, {
      usage: this.meter,
      publish,
      settle: (entry, terminal, extra) => this.lane.settle(entry, terminal, extra),
      started: () => (this.lastTurnError = null),
    }));
    this.lane = new PromptLane({
      sessionId: init.id,
      clock,
      log: services.log,
      prompts: services.prompts,
      writes: services.writes,
      maxPending: config.maxPendingPromptsPerSession,
      deadlineMs: config.promptDeadlineMs,
      cursor: () => ({ lastEventId: services.bus.lastEventId, eventEpoch: services.bus.epoch }),
      publish,
      runTurn: (entry) => {
        this.pendingContext.now();
        return runPrompt(turn, entry);
      },
      cancelInteractions: (reason, promptId) => this.interactions.cancelAll(reason, promptId),
      isClosing: () => this.closed,
      admitting: () => {
        this.assertOpen();
        services.rewinder.assertIdle();
      },
      failed: (error) => (this.lastTurnError = error),
      settled: (ran, now) => {
        if (ran) this.settledAt = Math.max(now, (this.settledAt ?? 0) + 1);
        this.touch();
        if (ran && !this.closed) promoteLeftovers(this.midTurn, this.lane.all(), (c, o) => this.submit(c, o), services.log, this.id);
      },
      idle: () => services.onIdle?.(this),
    });
  }

  // ── what others may read ───────────────────────────────────────────────────

  /** Tokens and cost so far (`GET /session/{id}/status` `usage`); rebuilt from the transcript on load. */
  get usage(): UsageMeter {
    this.pendingContext.now();
    return this.meter;
  }

  get closed(): boolean {
    return this.closedFor !== null;
  }

  get bus(): SessionBus {
    return this.services.bus;
  }

  get approvalMode(): ApprovalMode {
    return this.settings.approvalMode;
  }

  get guard(): Policy {
    return guardFor(this.settings.approvalMode);
  }

  get displayName(): string | null {
    return this.settings.displayName;
  }

  get prs(): readonly SessionPr[] {
    return this.settings.prs;
  }

  get turnError(): TurnErrorInfo | null {
    return this.lastTurnError;
  }

  /** When the last turn settled, or null before any did. */
  get updatedAt(): number | null {
    return this.settledAt;
  }

  get lastActivityAt(): number {
    return this.activityAt;
  }

  /** A prompt is queued, running, or still being admitted (its row written). */
  get hasActivePrompt(): boolean {
    return this.lane.busy;
  }

  /** Admitted prompts not yet settled or removed, running first (read only). */
  pendingPrompts(): readonly Readonly<PromptEntry>[] {
    return this.lane.all();
  }

  /** The prompt running now, if any. */
  runningPromptId(): string | undefined {
    return this.lane.running()?.promptId;
  }

  /** The driver's name (`built-in`, or an external agent's). */
  get harness(): string {
    return this.services.driver.harness;
  }

  /** The models the driver offers and the one it runs on. */
  models(): { readonly currentModelId: string | null; readonly availableModels: readonly ModelInfo[] } {
    return this.services.driver.state().models;
  }

  /** True once a transcript write failed (docs/client-api.md §7.6 `session_snapshot.recordingDegraded`). */
  get recordingDegraded(): boolean {
    return this.services.transcript.recordingDegraded;
  }

  // ── what others may ask ────────────────────────────────────────────────────

  /** Publishes one event: the bus numbers it, the transcript records it; after `session_closed` it is dropped. */
  publish(input: PublishInput): EventEnvelope | undefined {
    if (this.services.bus.isClosed) return undefined;
    const envelope = this.services.bus.publish(input);
    this.services.transcript.observe(envelope);
    return envelope;
  }

  touch(): void {
    this.activityAt = this.services.clock.now();
  }

  /** Throws once the session is closing: 404 `session_not_found` as for an unknown one, or 503 when it was handed over (closed-session.ts). */
  assertOpen(): void {
    if (this.closed) throw closedSessionError(this.id, this.closedFor);
  }

  /** Admits a prompt into the FIFO (docs/client-api.md §6); it runs after the reply is on its way. */
  async submit(content: readonly ContentBlock[], opts: SubmitOptions): Promise<PromptAccepted> {
    this.assertOpen();
    this.touch(); // activity from the moment it arrives: the reaper must not close it while its row is written
    const accepted = await this.lane.submit(content, opts);
    this.touch();
    return accepted;
  }

  /** Cancels only the running prompt (§6.3), or with `promptId` that one prompt, queued or running (§6.5). */
  cancel(clientId: string | undefined, promptId?: string): void {
    this.assertOpen();
    this.lane.cancel(clientId, promptId);
  }

  /** Renames the session or binds a pull request (docs/client-api.md §5.6); persisted and published. */
  updateMetadata(input: { displayName?: unknown; pr?: SessionPr }, clientId: string | undefined): Promise<SessionMetadata> {
    this.assertOpen();
    return this.settings.updateMetadata(input, clientId);
  }

  /** Changes the approval mode (docs/client-api.md §5.11); persisted in the row and recorded. */
  setApprovalMode(mode: ApprovalMode, clientId: string | undefined): ReturnType<SessionSettings['setApprovalMode']> {
    this.assertOpen();
    return this.settings.setApprovalMode(mode, clientId);
  }
  /** Switches the model (docs/client-api.md §5.7); returns the model now current. */
  switchModel(modelId: string, clientId: string | undefined): Promise<string> {
    this.assertOpen();
    return this.settings.switchModel(modelId, clientId);
  }

  rewindSnapshots(): ReturnType<SessionServices['rewinder']['snapshots']> {
    return this.services.rewinder.snapshots();
  }

  /** Goes back to an earlier turn (docs/client-api.md §5.13): its files, the model context, a `rewind` record. */
  async rewind(target: RewindTarget, clientId: string | undefined, viaCommand = false): Promise<RewindResult> {
    this.assertOpen();
    // The rewind rebuilds the context from storage itself: a rebuild still pending must not land on top of it later.
    this.pendingContext.now();
    return this.services.rewinder.rewind(target, clientId, viaCommand);
  }

  /** The tools a caller outside a turn sees now, under the approval mode's guard. */
  toolDefinitions(): readonly ToolDefinition[] {
    return this.services.tools.definitions(this.guard);
  }

  /** A tool call from outside any turn (an MCP client on this tab): the path a turn's calls take (sessions/outside-call.ts). */
  callTool(call: DriverToolCall, caller: OutsideCaller): Promise<ToolOutcome> {
    this.assertOpen();
    this.touch();
    return callFromOutside(this.ports, call, caller);
  }

  /** Writes the stored row of a fresh session. */
  recordCreated(): Promise<void> {
    return this.row.created(this.init, this.models().currentModelId);
  }

  /** A restored session takes up its stored row again; its model context and usage follow (restored-context.ts). */
  reopened(context: () => RestoredContext): void {
    this.pendingContext.later(context);
    this.row.changed({ closedAt: null, closeReason: null, approvalMode: this.settings.approvalMode });
    this.touch();
  }

  /** Writes out what the transcript recorder still holds; resolves once storage shows everything published so far. */
  flushTranscript(): Promise<void> {
    return this.services.transcript.flush();
  }

  /** Resolves once every write the session submitted so far (row, transcript, prompts, rows being admitted) has settled. */
  async flushWrites(): Promise<void> {
    await this.lane.admitted();
    return this.services.writes.flush();
  }

  /** Closes the live session: prompts end with `turn_error`, open requests resolve as cancelled, one `session_closed` ends every stream; the transcript stays. Idempotent. */
  close(reason: string, closedBy: string | null, code: 'session_closed' | 'daemon_shutdown' = 'session_closed', died?: AgentExit): void {
    if (this.closed) return;
    this.closedFor = reason;
    this.pendingContext.drop();
    this.interactions.cancelAll(reason === 'daemon_shutdown' ? 'daemon_shutdown' : 'closed');
    this.lane.endAll(code, reason);
    // An external agent's process died (issue 12): `session_died` ends the streams; the next prompt reopens the session.
    const closed = { type: 'session_closed', originatorClientId: closedBy ?? undefined, data: { sessionId: this.id, reason, closedBy } };
    this.publish(died ? { type: 'session_died', data: { sessionId: this.id, ...died } } : closed);
    // Submitted in order behind the events above; `flushWrites` awaits them (shutdown does).
    void this.services.transcript.flush();
    this.row.closed(reason);
    this.services.bus.close();
    this.services.driver.dispose();
    this.services.onClosed(this);
  }
}
