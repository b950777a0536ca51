import { GATEWAY_ANSWERED_ROWS_DELAY_MS, GATEWAY_ANSWERED_ROWS_MAX } from '../limits.js';
import type { WriteChain } from '../../write-chain.js';
import type { GatewayCallAnswer, GatewayCallRepository } from './call-journal.js';

/** How a batch is put off; a test passes its own to run it when it likes. */
export type Delay = (run: () => void, ms: number) => { cancel(): void };

const timerDelay: Delay = (run, ms) => {
  const timer = setTimeout(run, ms);
  // A daemon exiting without shutdown loses the batch like a crash would, which costs nothing (see below).
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
};

/**
 * B's journal rows that close answered write/critical calls, gathered and written in one
 * transaction (docs/gateway.md, B's journal): the caller already has its outcome and its own
 * receipt, so a row lost in a crash leaves what a crash just before the answer leaves. Written
 * one per call, each was a commit of its own on B's thread while the next call was under way.
 */
export class AnsweredRows {
  private pending: GatewayCallAnswer[] = [];
  private scheduled: { cancel(): void } | undefined;

  constructor(
    private readonly journal: GatewayCallRepository,
    private readonly writes: WriteChain,
    private readonly delay: Delay = timerDelay,
  ) {}

  add(answer: GatewayCallAnswer): void {
    this.pending.push(answer);
    if (this.pending.length >= GATEWAY_ANSWERED_ROWS_MAX) return this.flush();
    this.scheduled ??= this.delay(() => {
      this.scheduled = undefined;
      this.flush();
    }, GATEWAY_ANSWERED_ROWS_DELAY_MS);
  }

  /** Hands every waiting row to the write chain now, behind whatever was submitted before. */
  flush(): void {
    this.scheduled?.cancel();
    this.scheduled = undefined;
    if (this.pending.length === 0) return;
    const answers = this.pending;
    this.pending = [];
    this.writes.submit('gateway journal write', () => this.journal.answerAll(answers));
  }
}
