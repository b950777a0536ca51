import { AsyncLocalStorage } from 'node:async_hooks';
import type { WriteFence } from '../store/pg/db.js';

/**
 * The session whose work is running, carried through every await of that work
 * (docs/cluster-leases.md, Fencing): the store reads it when a write is made,
 * so a session's writes carry its lease token without each call passing it.
 */
const current = new AsyncLocalStorage<WriteFence>();

export function runFenced<T>(fence: WriteFence, work: () => T): T {
  return current.run(fence, work);
}

export function currentFence(): WriteFence | undefined {
  return current.getStore();
}
