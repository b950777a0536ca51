import { GATEWAY_JOURNAL_ROWS_DELAY_MS, GATEWAY_JOURNAL_ROWS_MAX } from '../limits.js';
import type { WriteChain } from '../../write-chain.js';
import type { GatewayCallAnswer, GatewayCallRepository, GatewayCallStart } from './call-journal.js';

/** How a batch is put off; a test passes its own to run it when it likes. */
export type Delay = (run: () => void, ms: number) => { cancel(): void };

const timerDelay: Delay = (run, ms) => {
  const timer = setTimeout(run, ms);
  // A daemon exiting without shutdown loses the batch like a crash would, which costs nothing (see below).
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
};

/**
 * B's journal rows that open (`sent`) and close (`answered`) write/critical calls, gathered and
 * written together (docs/gateway.md, B's journal): the caller's own receipt, written before the call
 * and before its outcome goes anywhere, is what keeps the effect once-only, and a restart of B never
 * sends a call again, so a row lost in a crash leaves what the restart makes of a row it finds
 * `sent`. Written one per call, each was a commit of its own on B's thread: the `sent` one between
 * the caller and the frame, the `answered` one while the next call was under way.
 */
export class JournalRows {
  private starts: GatewayCallStart[] = [];
  private answers: GatewayCallAnswer[] = [];
  private scheduled: { cancel(): void } | undefined;

  constructor(
    private readonly journal: GatewayCallRepository,
    private readonly writes: WriteChain,
    private readonly delay: Delay = timerDelay,
  ) {}

  /** A call's frame has left: its `sent` row joins the batch. */
  sent(start: GatewayCallStart): void {
    this.starts.push(start);
    this.schedule();
  }

  /** A's result for a call: the row closing it joins the batch, after the call's own `sent` row. */
  answered(answer: GatewayCallAnswer): void {
    this.answers.push(answer);
    this.schedule();
  }

  /**
   * Hands every waiting row to the write chain now, behind whatever was submitted before: a write
   * that changes a call's row (a re-send, an abandonment) is submitted after this, so it finds the row.
   */
  flush(): void {
    this.scheduled?.cancel();
    this.scheduled = undefined;
    const { starts, answers } = this;
    if (starts.length === 0 && answers.length === 0) return;
    this.starts = [];
    this.answers = [];
    this.writes.submit('gateway journal write', () => this.journal.writeRows(starts, answers));
  }

  private schedule(): void {
    if (this.starts.length + this.answers.length >= GATEWAY_JOURNAL_ROWS_MAX) return this.flush();
    this.scheduled ??= this.delay(() => {
      this.scheduled = undefined;
      this.flush();
    }, GATEWAY_JOURNAL_ROWS_DELAY_MS);
  }
}
