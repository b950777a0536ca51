import type { TranscriptRecord } from '../transcript/records.js';

/**
 * The records a rewind undid (docs/client-api.md §5.13). A `rewind` record names the first
 * and last records it undid (`fromRecordId`, `toRecordId`); everything between them is out
 * of the conversation from then on. Nothing is deleted: the transcript keeps it, the model
 * context and a load leave it out. A later rewind to an earlier turn covers an earlier one.
 */
export function rewoundRecordIds(records: readonly TranscriptRecord[]): Set<string> {
  const undone = new Set<string>();
  const index = new Map<string, number>();
  records.forEach((r, i) => index.set(r.recordId, i));
  records.forEach((r, i) => {
    if (r.kind !== 'rewind' || r.unreadable) return;
    const from = index.get(String(r.data.fromRecordId ?? ''));
    if (from === undefined) return;
    // `toRecordId`: the last record the rewind saw; what was recorded while it ran is not undone.
    const to = index.get(String(r.data.toRecordId ?? '')) ?? i - 1;
    for (let k = from; k <= Math.min(to, i - 1); k++) undone.add(records[k]!.recordId);
  });
  return undone;
}

/** The records still in the conversation: the transcript without what rewinds undid. */
export function liveRecords(records: readonly TranscriptRecord[]): TranscriptRecord[] {
  const undone = rewoundRecordIds(records);
  return undone.size === 0 ? [...records] : records.filter((r) => !undone.has(r.recordId));
}
