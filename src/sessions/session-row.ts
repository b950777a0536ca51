import type { Clock } from '../clock.js';
import type { SessionPatch, SessionRepository } from './records.js';
import type { SessionInit } from './session-init.js';
import type { WriteChain } from '../write-chain.js';
import { HANDED_OVER } from './recovery.js';

/**
 * The one writer of a session's stored row. Only its `Session` holds it, so
 * every change to the row goes through one of the session's own methods.
 */
export class SessionRowWriter {
  constructor(
    private readonly id: string,
    private readonly repo: SessionRepository,
    private readonly clock: Clock,
    /** The session's ordered writes, shared with its transcript recorder. */
    private readonly writes: WriteChain,
  ) {}

  /** Writes the row of a fresh session (a restored one has its row already); awaited, so a failure refuses the session. */
  created(init: SessionInit, modelId: string | null): Promise<void> {
    return this.repo.insert({
      id: init.id,
      workspaceId: init.workspace.id,
      scope: init.scope,
      createdAt: init.createdAt,
      updatedAt: init.createdAt,
      displayName: init.displayName,
      titleSource: null,
      prs: init.prs,
      modelId,
      approvalMode: init.approvalMode,
      sourceType: init.sourceType,
      sourceId: init.sourceId,
      worktree: init.worktree,
      branch: init.branch,
      currentCwd: init.cwd,
      closedAt: null,
      closeReason: null,
    });
  }

  /** The session closed; one handed over to another node (docs/cluster-leases.md) leaves its row open for that node. */
  closed(reason: string): void {
    if (reason === HANDED_OVER) return;
    const now = this.clock.now();
    this.changed({ closedAt: now, closeReason: reason }, now);
  }

  /**
   * A change a client asked for and is answered about: its row write goes behind the session's
   * earlier writes, and only once it is stored does `plan().apply` change the session in memory
   * and publish. So an answer means the change survives a crash, and a failed write changes
   * nothing and is the caller's error. The plan is made when the write starts, from the state
   * the writes before it left.
   */
  write<T>(plan: () => { readonly patch: SessionPatch; apply(): T }): Promise<T> {
    return this.writes.run(async () => {
      const { patch, apply } = plan();
      await this.repo.update(this.id, patch, this.clock.now());
      return apply();
    });
  }

  /** Submits a change of the row behind the session's earlier writes (a failure is logged). */
  changed(patch: SessionPatch, now: number = this.clock.now()): void {
    this.writes.submit('session row write', () => this.repo.update(this.id, patch, now));
  }
}
