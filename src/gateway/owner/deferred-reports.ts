import type { CallReport } from './call-handler.js';

/**
 * The owner's per-call status lines, written after the results they describe.
 * A status line goes to a terminal or a pipe, which Node writes synchronously:
 * written as the call settles it would sit between the tool's outcome and the
 * result frame. Queued instead and written once the current turn of the event
 * loop has handed its frames to the socket, in the order the calls settled.
 */
export class DeferredReports {
  private queued: CallReport[] = [];

  constructor(private readonly report: (report: CallReport) => void) {}

  add(report: CallReport): void {
    this.queued.push(report);
    if (this.queued.length === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const reports = this.queued;
    this.queued = [];
    for (const report of reports) this.report(report);
  }
}
