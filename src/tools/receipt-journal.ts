import { RECEIPT_RETENTION_MS } from './limits.js';
import type { ToolOutcome } from './types.js';

/** One durable record of an effectful tool call (docs/architecture.md, Receipt). */
export interface Receipt {
  readonly namespace: string;
  readonly callId: string;
  readonly toolName: string;
  readonly argsDigest: string;
  /** `executing` is written before the effect; `completed` once the outcome is known. */
  readonly status: 'executing' | 'completed';
  /** The settled outcome; null while executing. */
  readonly outcome: ToolOutcome | null;
  readonly startedAt: number;
  readonly finishedAt: number | null;
}

export type ReceiptStart = Pick<Receipt, 'namespace' | 'callId' | 'toolName' | 'argsDigest' | 'startedAt'>;

/** Receipt storage behind an interface, so a shared server database can serve it later (docs/architecture.md, Persistence). */
export interface ReceiptRepository {
  find(namespace: string, callId: string): Receipt | undefined;
  /** Writes an `executing` receipt; false (and nothing written) when one exists for this key. */
  begin(start: ReceiptStart): boolean;
  /** Records the outcome of an executing receipt. */
  complete(namespace: string, callId: string, outcome: ToolOutcome, finishedAt: number): void;
  /** Deletes completed receipts finished before `time`; executing ones are kept (they answer uncertain). */
  pruneCompletedBefore(time: number): number;
}


/**
 * The durable receipts plus the calls running in this process right now.
 *
 * A receipt left `executing` means one of two things: the call is still
 * running here (a duplicate should wait for it), or the process that ran it
 * died between effect and result (the call is uncertain, docs/architecture.md Receipt).
 * Only this process's in-memory map can tell them apart, so every executor
 * of one daemon shares one journal.
 */
export class ReceiptJournal {
  private readonly running = new Map<string, Promise<ToolOutcome>>();

  constructor(private readonly repo: ReceiptRepository) {}

  find(namespace: string, callId: string): Receipt | undefined {
    return this.repo.find(namespace, callId);
  }

  /**
   * Claims the call: writes `executing` and registers `run()`'s promise in the
   * same synchronous step, so no duplicate can see the receipt without the
   * promise. Returns undefined when someone else holds the claim.
   */
  claim(start: ReceiptStart, run: () => Promise<ToolOutcome>): Promise<ToolOutcome> | undefined {
    if (!this.repo.begin(start)) return undefined;
    const key = keyOf(start.namespace, start.callId);
    const running = run().finally(() => this.running.delete(key));
    this.running.set(key, running);
    return running;
  }

  complete(namespace: string, callId: string, outcome: ToolOutcome, finishedAt: number): void {
    this.repo.complete(namespace, callId, outcome, finishedAt);
  }

  /** The promise of a call running in this process, if any. */
  runningCall(namespace: string, callId: string): Promise<ToolOutcome> | undefined {
    return this.running.get(keyOf(namespace, callId));
  }
}

const keyOf = (namespace: string, callId: string) => `${namespace}\u0000${callId}`;

/** The journal on a process's receipts, after pruning completed receipts older than RECEIPT_RETENTION_MS. */
export function openReceiptJournal(repo: ReceiptRepository, now: number): ReceiptJournal {
  repo.pruneCompletedBefore(now - RECEIPT_RETENTION_MS);
  return new ReceiptJournal(repo);
}
