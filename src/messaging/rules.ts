import { MODULE_HOP_WINDOW_MS, MODULE_MAX_HOPS, MODULE_PACE_MAX, MODULE_PACE_WINDOW_MS } from './limits.js';
import type { ErrorCode } from '../protocol/errors/index.js';

/**
 * The rules a message between two tabs must pass (docs/modules.md, Rules),
 * asked in this order:
 *
 * 1. **Network.** A tab without network may never send to a tab with it: the
 *    receiver could carry the sender's files out. The other direction leaks
 *    nothing that could not leave already.
 * 2. **Chain.** A message a tab sends within MODULE_HOP_WINDOW_MS of being
 *    handed one continues that message's chain, one step further; any other
 *    message starts a chain at step 1. A step past MODULE_MAX_HOPS is cut, so
 *    two agents answering each other stop on their own. "Handed" means the
 *    message was offered to the agent as a prompt or taken with `inbox`, not
 *    merely queued for it.
 * 3. **Pace.** A tab sends at most MODULE_PACE_MAX messages per
 *    MODULE_PACE_WINDOW_MS (a message to `all` counts once), so a loop is
 *    stopped even when every message starts a new chain.
 *
 * Nothing here reads a clock: every call is given `now`, so the windows are
 * tested without waiting. The state is in memory: a restart forgets the
 * chains and the pace, which only lets agents start afresh.
 */

/** One side of a message: a tab, by its session id, and whether its tools reach the network. */
export interface End {
  readonly key: string;
  readonly network: boolean;
}

export type Refusal = 'network' | 'chain' | 'pace';

export type Verdict =
  | { readonly ok: true; readonly hop: number }
  | { readonly ok: false; readonly refusal: Refusal; readonly code: ErrorCode; readonly text: string; readonly retryAfterMs?: number };

/** When the tab was last handed a message, and that message's step. */
export interface LastReceived {
  readonly hop: number;
  readonly at: number;
}

/** The step a message sent at `now` would be, given what its sender was last handed. */
export function nextHop(last: LastReceived | undefined, now: number): number {
  return last !== undefined && now - last.at < MODULE_HOP_WINDOW_MS ? last.hop + 1 : 1;
}

/** Sends still inside the pace window at `now`. */
export function recentSends(sentAt: readonly number[], now: number): number[] {
  return sentAt.filter((at) => now - at < MODULE_PACE_WINDOW_MS);
}

/** Rule 1 alone: whether `from` may send to `to` at all. */
export function networkAllows(from: End, to: End): boolean {
  return from.network || !to.network;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export const NETWORK_REFUSAL = {
  ok: false,
  refusal: 'network',
  code: 'network_rule',
  text: 'Refused: a tab without network access may not send to a tab with it (that tab could carry your files out).',
} as const satisfies Verdict;

export class MessageRules {
  private readonly sent = new Map<string, number[]>();
  private readonly received = new Map<string, LastReceived>();

  /** The step a message from `key` at `now` would be. */
  hop(key: string, now: number): number {
    return nextHop(this.received.get(key), now);
  }

  /** Rules 2 and 3, which depend on the sender only (a message to `all` asks them once). */
  checkSender(key: string, now: number): Verdict {
    const hop = this.hop(key, now);
    if (hop > MODULE_MAX_HOPS) {
      const last = this.received.get(key)!;
      const wait = last.at + MODULE_HOP_WINDOW_MS - now;
      return {
        ok: false,
        refusal: 'chain',
        code: 'hop_limit',
        text: `Refused: this would be step ${hop} of one chain of messages; a chain stops after ${MODULE_MAX_HOPS} steps within ${MODULE_HOP_WINDOW_MS / 60_000} minutes so agents do not keep each other busy. A person can take it from here, or a new chain starts ${seconds(wait)} s after your last message arrived.`,
        retryAfterMs: wait,
      };
    }
    const recent = recentSends(this.sent.get(key) ?? [], now);
    if (recent.length >= MODULE_PACE_MAX) {
      const wait = recent[0]! + MODULE_PACE_WINDOW_MS - now;
      return {
        ok: false,
        refusal: 'pace',
        code: 'pace_limit',
        text: `Refused: this tab sent ${recent.length} messages in the last ${MODULE_PACE_WINDOW_MS / 1000} seconds, the most allowed; try again in ${seconds(wait)} s.`,
        retryAfterMs: wait,
      };
    }
    return { ok: true, hop };
  }

  /** All three rules for one message from `from` to `to`, in order: network, chain, pace. */
  check(from: End, to: End, now: number): Verdict {
    if (!networkAllows(from, to)) return NETWORK_REFUSAL;
    return this.checkSender(from.key, now);
  }

  /** Counts a message `key` sent at `now` against its pace. */
  recordSent(key: string, now: number): void {
    const kept = recentSends(this.sent.get(key) ?? [], now);
    kept.push(now);
    this.sent.set(key, kept);
  }

  /** Records that `key` was handed a message that was step `hop` of its chain; what it sends next continues it. */
  recordReceived(key: string, hop: number, now: number): void {
    this.received.set(key, { hop, at: now });
  }

  /** Forgets a tab that closed, so nothing of it is held for as long as the daemon runs. */
  forget(key: string): void {
    this.sent.delete(key);
    this.received.delete(key);
  }
}
