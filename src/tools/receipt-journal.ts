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
  find(namespace: string, callId: string): Promise<Receipt | undefined>;
  /** Writes an `executing` receipt; false (and nothing written) when one exists for this key. */
  begin(start: ReceiptStart): Promise<boolean>;
  /** Records the outcome of an executing receipt. */
  complete(namespace: string, callId: string, outcome: ToolOutcome, finishedAt: number): Promise<void>;
  /** Deletes completed receipts finished before `time`; executing ones are kept (they answer uncertain). */
  pruneCompletedBefore(time: number): Promise<number>;
  /** The receipts of one namespace begun at or after `time`, oldest first (start-up recovery of a turn's calls). */
  startedSince(namespace: string, time: number): Promise<Receipt[]>;
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
  private readonly running = new Map<string, { readonly start: ReceiptStart; readonly outcome: Promise<ToolOutcome | undefined> }>();

  constructor(private readonly repo: ReceiptRepository) {}

  find(namespace: string, callId: string): Promise<Receipt | undefined> {
    return this.repo.find(namespace, callId);
  }

  /**
   * Claims the call: registers the claim here first (so no duplicate can see the
   * receipt without it), writes `executing`, and only once that is stored runs `run()`.
   * Resolves undefined, running nothing, when someone else holds the claim.
   */
  claim(start: ReceiptStart, run: () => Promise<ToolOutcome>): Promise<ToolOutcome | undefined> {
    const key = keyOf(start.namespace, start.callId);
    if (this.running.has(key)) return Promise.resolve(undefined);
    const outcome = this.repo
      .begin(start)
      .then((won) => (won ? run() : undefined))
      .finally(() => this.running.delete(key));
    this.running.set(key, { start, outcome });
    return outcome;
  }

  complete(namespace: string, callId: string, outcome: ToolOutcome, finishedAt: number): Promise<void> {
    return this.repo.complete(namespace, callId, outcome, finishedAt);
  }

  /** The claim of a call made in this process, if any: its start, and its outcome (undefined if the claim was lost). */
  runningCall(namespace: string, callId: string): { readonly start: ReceiptStart; readonly outcome: Promise<ToolOutcome | undefined> } | undefined {
    return this.running.get(keyOf(namespace, callId));
  }
}

const keyOf = (namespace: string, callId: string) => `${namespace}\u0000${callId}`;

/** The journal on a process's receipts, after pruning completed receipts older than RECEIPT_RETENTION_MS. */
export async function openReceiptJournal(repo: ReceiptRepository, now: number): Promise<ReceiptJournal> {
  await repo.pruneCompletedBefore(now - RECEIPT_RETENTION_MS);
  return new ReceiptJournal(repo);
}
