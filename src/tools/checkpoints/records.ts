import { sha256Hex } from '../../protocol/tools/sha256.js';

/**
 * What a file looked like before an effect: `absent` (no file), `file` (its content is
 * kept under `sha256`), `unknown` (it could not be kept: binary, too large, unreadable) or
 * `evicted` (kept once, then given up to the session's byte budget).
 */
export type PriorState = 'absent' | 'file' | 'unknown' | 'evicted';

/** One write, patch or delete of a turn, with the file's state before and after it. */
export interface FileEffect {
  readonly id: number;
  readonly sessionId: string;
  /** The turn it belongs to; null for an effect outside any turn. */
  readonly promptId: string | null;
  readonly callId: string;
  readonly path: string;
  readonly prior: PriorState;
  readonly priorSha256: string | null;
  /** What the call left: `pending` until it settles. */
  readonly after: 'pending' | 'file' | 'absent';
  readonly afterSha256: string | null;
  /** The rewind that put the file back, if any. */
  readonly undoneBy: string | null;
  readonly at: number;
}

export type NewFileEffect = Omit<FileEffect, 'id' | 'after' | 'afterSha256' | 'undoneBy'>;

/** Where checkpoints are kept: the tool layer's interface, which `store/` implements. */
export interface CheckpointRepository {
  putBlob(sessionId: string, sha256: string, content: Buffer): Promise<void>;
  blob(sessionId: string, sha256: string): Promise<Buffer | undefined>;
  blobBytes(sessionId: string): Promise<number>;
  addEffect(effect: NewFileEffect): Promise<number>;
  settleEffect(id: number, after: 'file' | 'absent', afterSha256: string | null): Promise<void>;
  dropEffect(id: number): Promise<void>;
  /** Every effect of the session, oldest first. */
  effects(sessionId: string): Promise<FileEffect[]>;
  /**
   * Gives up one kept content of the session — an undone effect's first (no rewind can need it
   * again), else the oldest — and the blobs nothing needs any more; false when none is left.
   */
  evictOldest(sessionId: string): Promise<boolean>;
  markUndone(ids: readonly number[], rewindId: string): Promise<void>;
}

/** A file's state as a checkpoint records it. */
export type FileState = { readonly kind: 'absent' } | { readonly kind: 'file'; readonly content: Buffer } | { readonly kind: 'unknown' };

/**
 * One session's checkpoints under its byte budget: contents stored once by SHA-256; when a
 * new one would not fit, contents only undone turns needed go first, then the oldest.
 */
export class CheckpointBook {
  constructor(
    private readonly repo: CheckpointRepository,
    readonly sessionId: string,
    readonly budgetBytes: number,
  ) {}

  /** Records the state a file had before an effect; returns the effect's id. */
  async before(promptId: string | null, callId: string, path: string, state: FileState, at: number): Promise<number> {
    const { repo, sessionId } = this;
    let prior: PriorState = state.kind;
    let priorSha256: string | null = null;
    if (state.kind === 'file') {
      priorSha256 = sha256Hex(state.content);
      if (state.content.length > this.budgetBytes) prior = 'unknown';
      else if (!(await repo.blob(sessionId, priorSha256))) {
        while ((await repo.blobBytes(sessionId)) + state.content.length > this.budgetBytes && (await repo.evictOldest(sessionId)));
        await repo.putBlob(sessionId, priorSha256, state.content);
      }
    }
    return repo.addEffect({ sessionId, promptId, callId, path, prior, priorSha256, at });
  }

  /** What the effect left; a call that did nothing (refused, failed, replayed) leaves no effect. */
  settle(id: number, after: { kind: 'file'; sha256: string } | { kind: 'absent' } | null): Promise<void> {
    if (after === null) return this.repo.dropEffect(id);
    return this.repo.settleEffect(id, after.kind, after.kind === 'file' ? after.sha256 : null);
  }

  effects(): Promise<FileEffect[]> {
    return this.repo.effects(this.sessionId);
  }

  content(sha256: string): Promise<Buffer | undefined> {
    return this.repo.blob(this.sessionId, sha256);
  }

  markUndone(ids: readonly number[], rewindId: string): Promise<void> {
    return this.repo.markUndone(ids, rewindId);
  }
}
