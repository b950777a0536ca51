import type { TokenUsage } from '../agents/driver.js';
import type { TranscriptRecord } from '../transcript/records.js';

/** Token counts (and cost, when priced) summed over model requests: one turn's or a whole session's. */
export interface UsageTotals extends TokenUsage {
  readonly requests: number;
}

/** `GET /session/{id}/status` `usage` (docs/client-api.md): the session so far and its last finished turn. */
export interface UsageSnapshot {
  readonly session: UsageTotals;
  readonly lastTurn?: UsageTotals;
}

/** ACP's `usage_update`: tokens the model context held (`used`) out of its window (`size`). */
export interface ContextFill {
  readonly used: number;
  readonly size: number;
}

const ZERO: UsageTotals = { requests: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, thoughtTokens: 0, cachedReadTokens: 0 };
const COUNTS = ['inputTokens', 'outputTokens', 'totalTokens', 'thoughtTokens', 'cachedReadTokens'] as const;

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

/** `total` plus one request's qwen-shaped usage (`_meta.usage` of a usage chunk); anything malformed counts as 0. */
export function addUsage(total: UsageTotals, usage: unknown): UsageTotals {
  if (typeof usage !== 'object' || usage === null) return total;
  const u = usage as Record<string, unknown>;
  const next: Record<string, unknown> = { requests: total.requests + 1 };
  for (const key of COUNTS) next[key] = total[key] + count(u[key]);
  const cost = u.cost as { amount?: unknown; currency?: unknown } | undefined;
  const currency = typeof cost?.currency === 'string' ? cost.currency : undefined;
  if (currency !== undefined && (total.cost === undefined || total.cost.currency === currency)) {
    next.cost = { amount: (total.cost?.amount ?? 0) + count(cost?.amount), currency };
  } else if (total.cost) next.cost = total.cost;
  return next as unknown as UsageTotals;
}

/** The session's usage as its transcript recorded it (each `agent_message` keeps its request's usage): load/resume. */
export function usageFromRecords(records: readonly TranscriptRecord[]): UsageTotals {
  let total = ZERO;
  for (const r of records) if (r.kind === 'agent_message' && r.data.usage) total = addUsage(total, r.data.usage);
  return total;
}

/**
 * A session's running usage totals. Fed with every usage chunk its driver emits (the built-in
 * agent's, or an external agent's that reports `_meta.usage`); never reads a clock.
 */
export class UsageMeter {
  private total: UsageTotals;
  private turn: UsageTotals = ZERO;
  private last: UsageTotals | undefined;
  private window: ContextFill | undefined;

  constructor(restored: UsageTotals = ZERO) {
    this.total = restored;
  }

  /** Takes up the totals a stored session had (load/resume). */
  restore(totals: UsageTotals): void {
    this.total = totals;
  }

  add(usage: unknown): void {
    this.total = addUsage(this.total, usage);
    this.turn = addUsage(this.turn, usage);
  }

  /** Ends the running turn's count and returns it (carried by `turn_complete` and its transcript record). */
  endTurn(): UsageTotals {
    this.last = this.turn;
    this.turn = ZERO;
    return this.last;
  }

  get running(): UsageTotals {
    return this.turn;
  }

  /** How full the model context was at the last request that reported it (a driver's `usage_update`). */
  get context(): ContextFill | undefined {
    return this.window;
  }

  noteContext(fill: ContextFill): void {
    this.window = fill;
  }

  snapshot(): UsageSnapshot {
    return { session: this.total, ...(this.last ? { lastTurn: this.last } : {}) };
  }
}

/**
 * Counts a driver's update into `meter` and completes qwen's `usage_update` (docs/client-api.md §8.1)
 * with what only the session knows: the cost so far (ACP's `cost`) and the turn and session totals
 * in `_meta.usage`. Any other update passes unchanged.
 */
export function meteredUpdate<U extends { readonly sessionUpdate: string }>(meter: UsageMeter, update: U): U {
  const meta = (update as { _meta?: Record<string, unknown> })._meta;
  if (update.sessionUpdate === 'agent_message_chunk' && meta?.usage) meter.add(meta.usage);
  if (update.sessionUpdate !== 'usage_update') return update;
  const fill = update as unknown as { used?: unknown; size?: unknown };
  if (typeof fill.used === 'number' && typeof fill.size === 'number') meter.noteContext({ used: count(fill.used), size: count(fill.size) });
  const { session } = meter.snapshot();
  return {
    ...update,
    ...(session.cost ? { cost: session.cost } : {}),
    _meta: { ...meta, usage: { turn: meter.running, session } },
  };
}
