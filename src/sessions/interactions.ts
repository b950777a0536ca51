import type { Clock } from '../clock.js';
import type { PermissionTimeoutOutcome } from '../config/config.js';
import { MAX_PENDING_PERMISSIONS, RESOLVED_PERMISSIONS_REMEMBERED } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { newRequestId } from './ids.js';

/** An ACP `PermissionOption` (docs/client-api.md §8.2). */
export interface PermissionOption {
  readonly optionId: string;
  readonly name: string;
  readonly kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';
}

export type Outcome = { outcome: 'cancelled' } | { outcome: 'selected'; optionId: string };

export interface Resolution {
  readonly outcome: Outcome;
  /** The option's ACP kind, or null when cancelled. */
  readonly kind: PermissionOption['kind'] | null;
  readonly answers?: Readonly<Record<string, string>>;
  readonly voterClientId?: string;
  /** Why it ended without a vote: `cancelled` (turn cancel), `timeout`, `closed`, `overflow`. */
  readonly reason?: string;
}

export interface QuestionSpec {
  readonly question: string;
  readonly header: string;
  readonly answerKey: string;
  readonly multiSelect: boolean;
  readonly options: readonly { label: string; description?: string }[];
}

export interface InteractionRequest {
  readonly kind: 'permission' | 'user_question';
  readonly promptId: string | undefined;
  readonly originatorClientId: string | undefined;
  /** ACP ToolCallUpdate of the gated call (an object: the SDK drops requests without one). */
  readonly toolCall: Record<string, unknown>;
  readonly title: string;
  readonly questions?: readonly QuestionSpec[];
  /** The options a permission offers (sessions/permission-options.ts); default PERMISSION_OPTIONS. */
  readonly options?: readonly PermissionOption[];
  /** Withdraws the request (resolved as cancelled) when it aborts: a caller outside a turn went away. */
  readonly signal?: AbortSignal;
}

/** Emits the interaction events; the session supplies its bus. */
export interface InteractionEvents {
  requested(req: PendingRequest): void;
  resolved(req: PendingRequest, resolution: Resolution): void;
  alreadyResolved(requestId: string, promptId: string | undefined, outcome: Outcome): void;
}

export interface PendingRequest extends InteractionRequest {
  readonly requestId: string;
  readonly createdAt: number;
  readonly options: readonly PermissionOption[];
}

interface Waiter {
  readonly request: PendingRequest;
  readonly settle: (r: Resolution) => void;
  timer?: NodeJS.Timeout;
}

/** Options offered for a tool call: once/always, allow/reject (ACP kinds; ids echo qwen's). */
export const PERMISSION_OPTIONS: readonly PermissionOption[] = [
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'proceed_always', name: 'Allow always in this session', kind: 'allow_always' },
  { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject_always', name: 'Reject always in this session', kind: 'reject_always' },
];

export const QUESTION_OPTIONS: readonly PermissionOption[] = [
  { optionId: 'proceed_once', name: 'Submit', kind: 'allow_once' },
  { optionId: 'cancel', name: 'Cancel', kind: 'reject_once' },
];

export interface VoteInput {
  readonly outcome: Outcome;
  readonly answers?: Record<string, string>;
  readonly voterClientId?: string;
}

/**
 * A session's open permission requests and questions for a person (docs/client-api.md §9).
 * First valid vote wins (`first-responder`); later votes see 404 and a
 * `permission_already_resolved` event. Cancel, close and the optional timeout
 * resolve without a vote and say why.
 */
export class InteractionBook {
  private readonly open = new Map<string, Waiter>();
  private readonly resolved = new Map<string, { promptId: string | undefined; outcome: Outcome }>();

  constructor(
    private readonly events: InteractionEvents,
    private readonly clock: Clock,
    private readonly timeout: { ms: number | null; outcome: PermissionTimeoutOutcome },
  ) {}

  /** Opens a request and waits for its resolution. Never rejects. */
  ask(input: InteractionRequest): Promise<Resolution> {
    const options = input.kind === 'user_question' ? QUESTION_OPTIONS : (input.options ?? PERMISSION_OPTIONS);
    const request: PendingRequest = { ...input, requestId: newRequestId(), createdAt: this.clock.now(), options };
    return new Promise<Resolution>((resolve) => {
      const waiter: Waiter = { request, settle: resolve };
      if (this.open.size >= MAX_PENDING_PERMISSIONS) {
        // docs/client-api.md §9.1: excess requests resolve as cancelled at once.
        this.events.requested(request);
        this.finish(waiter, { outcome: { outcome: 'cancelled' }, kind: null, reason: 'overflow' });
        return;
      }
      this.open.set(request.requestId, waiter);
      this.events.requested(request);
      const withdraw = () => this.cancelOne(request.requestId, 'cancelled');
      if (input.signal?.aborted) return withdraw();
      input.signal?.addEventListener('abort', withdraw, { once: true });
      if (this.timeout.ms !== null) {
        waiter.timer = setTimeout(() => this.expire(request.requestId), this.timeout.ms);
        waiter.timer.unref?.();
      }
    });
  }

  has(requestId: string): boolean {
    return this.open.has(requestId);
  }

  /**
   * Applies a vote. Returns false when the request is not pending (the route
   * answers 404); throws `invalid_option_id` for an option that was not offered.
   */
  vote(requestId: string, input: VoteInput): boolean {
    const waiter = this.open.get(requestId);
    if (!waiter) {
      const past = this.resolved.get(requestId);
      if (past) this.events.alreadyResolved(requestId, past.promptId, past.outcome);
      return false;
    }
    let kind: PermissionOption['kind'] | null = null;
    if (input.outcome.outcome === 'selected') {
      const optionId = input.outcome.optionId;
      const option = waiter.request.options.find((o) => o.optionId === optionId);
      if (!option) {
        throw new BerthError(
          'invalid_option_id',
          `Permission ${requestId}: optionId "${optionId}" is not in the set of options the agent offered.`,
          { requestId, optionId },
        );
      }
      kind = option.kind;
    }
    this.finish(waiter, {
      outcome: input.outcome,
      kind,
      ...(input.answers ? { answers: input.answers } : {}),
      ...(input.voterClientId ? { voterClientId: input.voterClientId } : {}),
    });
    return true;
  }

  /** Resolves every open request (optionally only one prompt's) as cancelled. */
  cancelAll(reason: string, promptId?: string): void {
    for (const waiter of [...this.open.values()]) {
      if (promptId !== undefined && waiter.request.promptId !== promptId) continue;
      this.finish(waiter, { outcome: { outcome: 'cancelled' }, kind: null, reason });
    }
  }

  private cancelOne(requestId: string, reason: string): void {
    const waiter = this.open.get(requestId);
    if (waiter) this.finish(waiter, { outcome: { outcome: 'cancelled' }, kind: null, reason });
  }

  pending(): readonly PendingRequest[] {
    return [...this.open.values()].map((w) => w.request);
  }

  private expire(requestId: string): void {
    const waiter = this.open.get(requestId);
    if (!waiter) return;
    const wanted = this.timeout.outcome;
    const pick = (kind: PermissionOption['kind']) => waiter.request.options.find((o) => o.kind === kind);
    const option = wanted === 'allow' ? pick('allow_once') : wanted === 'reject' ? pick('reject_once') : undefined;
    const resolution: Resolution = option
      ? { outcome: { outcome: 'selected', optionId: option.optionId }, kind: option.kind, reason: 'timeout' }
      : { outcome: { outcome: 'cancelled' }, kind: null, reason: 'timeout' };
    this.finish(waiter, resolution);
  }

  private finish(waiter: Waiter, resolution: Resolution): void {
    const { requestId, promptId } = waiter.request;
    if (waiter.timer) clearTimeout(waiter.timer);
    this.open.delete(requestId);
    this.resolved.set(requestId, { promptId, outcome: resolution.outcome });
    if (this.resolved.size > RESOLVED_PERMISSIONS_REMEMBERED) {
      this.resolved.delete(this.resolved.keys().next().value as string);
    }
    this.events.resolved(waiter.request, resolution);
    waiter.settle(resolution);
  }
}
