import type { CallReport } from './call-handler.js';

/** How long a call's status line may wait for the ones after it: a person reading them sees no delay. */
export const REPORT_GATHER_MS = 100;

/**
 * The owner's per-call status lines, written after the results they describe,
 * several at once. A status line goes to a terminal or a pipe, which Node
 * writes synchronously: written as the call settles it would sit between the
 * tool's outcome and the result frame, and written one by one each line cost
 * a write of its own (and a turn of the event loop) on every call. Gathered
 * instead for up to REPORT_GATHER_MS, in the order the calls settled, and
 * handed over together; `flush()` hands over what waits at once (before
 * another status line, and when the owner stops).
 */
export class DeferredReports {
  private queued: CallReport[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly report: (reports: readonly CallReport[]) => void,
    private readonly gatherMs = REPORT_GATHER_MS,
  ) {}

  add(report: CallReport): void {
    this.queued.push(report);
    // Unref'd: lines waiting to be written never keep the process alive; stopping flushes them.
    if (this.timer === undefined) this.timer = setTimeout(() => this.flush(), this.gatherMs).unref();
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queued.length === 0) return;
    const reports = this.queued;
    this.queued = [];
    this.report(reports);
  }
}
