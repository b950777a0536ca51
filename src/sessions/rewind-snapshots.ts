import type { CheckpointBook } from '../tools/checkpoints/records.js';
import type { TranscriptRepository } from '../transcript/records.js';
import { liveRecords } from './rewound.js';

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
  readonly transcript: Pick<TranscriptRepository, 'all'>;
  readonly checkpoints: Pick<CheckpointBook, 'effects'>;
  flushTranscript(): Promise<void>;
}

/** Every turn still in the conversation, oldest first, with the files each one changed. */
export async function rewindSnapshots(ports: RewindSnapshotPorts): Promise<RewindSnapshot[]> {
  await ports.flushTranscript();
  const prompts = liveRecords(await ports.transcript.all(ports.sessionId)).filter((r) => r.kind === 'user_prompt');
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
