import type { HistoryItem } from '../agents/driver.js';
import type { UsageTotals } from './usage.js';

/** A reopened session's model context and usage, as rebuilt from its whole transcript. */
export interface RestoredContext {
  readonly history: readonly HistoryItem[];
  readonly usage?: UsageTotals;
}

/**
 * The rebuild a reopened session owes: a load answers before it (building it
 * reads the whole transcript), it follows a moment later, and whatever needs
 * the past sooner (a turn, a rewind, a read of the usage) runs it first. Once.
 */
export class PendingContext {
  private build: (() => RestoredContext) | null = null;

  constructor(private readonly apply: (context: RestoredContext) => void) {}

  later(build: () => RestoredContext): void {
    this.build = build;
    setImmediate(() => this.now());
  }

  /** Runs the rebuild still owed, if any. */
  now(): void {
    const build = this.build;
    if (!build) return;
    this.build = null;
    this.apply(build());
  }

  /** The session closed: nothing left to rebuild. */
  drop(): void {
    this.build = null;
  }
}
