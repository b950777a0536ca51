import type { CheckpointBook } from '../tools/checkpoints/records.js';
import type { TranscriptRecord, TranscriptRepository } from '../transcript/records.js';

/**
 * One turn a rewind can go back to, as qwen serve lists them: the prompt that opened it (what
 * `POST /session/{id}/rewind` takes as `promptId`), its index among the conversation's turns (a
 * rewind's `targetTurnIndex`), when it was sent, and the files its calls changed.
 */
export interface RewindSnapshot {
  readonly promptId: string;
  readonly turnIndex: number;
  readonly at: number;
  /** Distinct paths the turn wrote, patched or deleted and no rewind has put back. */
  readonly filesChanged: number;
}

/** What the listing reads; the session lends it (sessions/spawn.ts). */
export interface RewindSnapshotPorts {
  readonly sessionId: string;
  readonly transcript: Pick<TranscriptRepository, 'ofKind' | 'lastSeq' | 'seqOf'>;
  readonly checkpoints: Pick<CheckpointBook, 'effects'>;
  flushTranscript(): Promise<void>;
}

/**
 * The prompts still in the conversation: those no rewind undid. A rewind undid the records from
 * `fromRecordId` to `toRecordId` (or to itself), as `rewoundRecordIds` (rewound.ts) reads them;
 * here only the prompts and the rewinds are read, by kind, not the whole transcript, since a long
 * session's answers and tool results are most of it and none of them is needed to list its turns.
 */
async function livePrompts(ports: RewindSnapshotPorts): Promise<TranscriptRecord[]> {
  const { transcript, sessionId } = ports;
  const last = await transcript.lastSeq(sessionId);
  const prompts = await transcript.ofKind(sessionId, 'user_prompt', last);
  const undone: [number, number][] = [];
  for (const r of await transcript.ofKind(sessionId, 'rewind', last)) {
    if (r.unreadable) continue;
    const from = await seqIn(ports, r.data.fromRecordId);
    if (from === undefined) continue;
    const to = (await seqIn(ports, r.data.toRecordId)) ?? r.seq - 1;
    undone.push([from, Math.min(to, r.seq - 1)]);
  }
  return undone.length === 0 ? prompts : prompts.filter((p) => !undone.some(([from, to]) => p.seq >= from && p.seq <= to));
}

/** Where a record of this session sits, if the id names one. */
async function seqIn(ports: RewindSnapshotPorts, recordId: unknown): Promise<number | undefined> {
  const found = await ports.transcript.seqOf(String(recordId ?? ''));
  return found?.sessionId === ports.sessionId ? found.seq : undefined;
}

/** Every turn still in the conversation, oldest first, with the files each one changed. */
export async function rewindSnapshots(ports: RewindSnapshotPorts): Promise<RewindSnapshot[]> {
  await ports.flushTranscript();
  const prompts = await livePrompts(ports);
  const paths = new Map<string, Set<string>>();
  for (const effect of await ports.checkpoints.effects()) {
    if (effect.promptId === null || effect.undoneBy !== null || effect.after === 'pending') continue;
    const set = paths.get(effect.promptId) ?? new Set<string>();
    paths.set(effect.promptId, set.add(effect.path));
  }
  return prompts.flatMap((r, turnIndex) =>
    r.promptId === null ? [] : [{ promptId: r.promptId, turnIndex, at: r.at, filesChanged: paths.get(r.promptId)?.size ?? 0 }],
  );
}
