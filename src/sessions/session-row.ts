import type { Clock } from '../clock.js';
import type { SessionPatch, SessionRepository } from './records.js';
import type { SessionInit } from './session-init.js';

/**
 * The one writer of a session's stored row. Only its `Session` holds it, so
 * every change to the row goes through one of the session's own methods.
 */
export class SessionRowWriter {
  constructor(
    private readonly id: string,
    private readonly repo: SessionRepository,
    private readonly clock: Clock,
  ) {}

  /** Writes the row of a fresh session (a restored one has its row already). */
  created(init: SessionInit, modelId: string | null): void {
    this.repo.insert({
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

  changed(patch: SessionPatch, now: number = this.clock.now()): void {
    this.repo.update(this.id, patch, now);
  }
}
