import { RECEIPT_RETENTION_MS } from './limits.js';
import type { Db } from '../store/db.js';
import { SqliteReceiptRepository, type Receipt, type ReceiptRepository, type ReceiptStart } from '../store/repos/receipts.js';
import type { ToolOutcome } from './types.js';

/**
 * The durable receipts plus the calls running in this process right now.
 *
 * A receipt left `executing` means one of two things: the call is still
 * running here (a duplicate should wait for it), or the process that ran it
 * died between effect and result (the call is uncertain, design.md Receipt).
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

/** The journal on a process's store, after pruning completed receipts older than RECEIPT_RETENTION_MS. */
export function openReceiptJournal(db: Db, now: number): ReceiptJournal {
  const repo = new SqliteReceiptRepository(db);
  repo.pruneCompletedBefore(now - RECEIPT_RETENTION_MS);
  return new ReceiptJournal(repo);
}
