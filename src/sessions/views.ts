import type { PendingRequest } from './interactions.js';
import type { Session } from './session.js';

/**
 * Read-only views of a live session in the contract's shapes: `SessionSummary`
 * (docs/client-api.md §5.8), `PendingInteraction`, `PendingPrompt` (docs/client-api.md §6.4), `Session` (§5.1).
 */

const iso = (ms: number) => new Date(ms).toISOString();

export function workspaceCwdOf(session: Session): string {
  return session.workspace.kind === 'local' ? session.workspace.root : session.workspace.id;
}

/** Status entries use `label` for options, where events use ACP `name` (docs/client-api.md §9.5). */
export function pendingInteraction(req: PendingRequest): Record<string, unknown> {
  const options = req.options.map((o) => ({ optionId: o.optionId, label: o.name, kind: o.kind }));
  if (req.kind === 'user_question') {
    return {
      requestId: req.requestId,
      kind: 'user_question',
      createdAt: iso(req.createdAt),
      title: req.title,
      questions: req.questions ?? [],
      options,
    };
  }
  const tc = req.toolCall;
  return {
    requestId: req.requestId,
    kind: 'permission',
    createdAt: iso(req.createdAt),
    title: req.title,
    action: {
      type: tc.kind,
      title: tc.title,
      content: tc.content ?? [],
      locations: tc.locations ?? [],
      input: tc.rawInput ?? {},
    },
    options,
  };
}

export function sessionSummary(session: Session): Record<string, unknown> {
  const pending = session.interactions.pending();
  const waitingPermission = pending.some((p) => p.kind === 'permission');
  const waitingQuestion = pending.some((p) => p.kind === 'user_question');
  const init = session.init;
  return {
    sessionId: session.id,
    workspaceCwd: workspaceCwdOf(session),
    createdAt: iso(session.createdAt),
    ...(session.updatedAt !== null ? { updatedAt: iso(session.updatedAt) } : {}),
    ...(session.displayName !== null ? { displayName: session.displayName } : {}),
    ...(init.sourceType !== null ? { sourceType: init.sourceType } : {}),
    ...(init.sourceId !== null ? { sourceId: init.sourceId } : {}),
    clientCount: session.clients.count,
    hasActivePrompt: session.hasActivePrompt,
    activeWorkState: session.hasActivePrompt ? 'active' : 'idle',
    hasRunningBackgroundTasks: false,
    isWaitingForPermission: waitingPermission,
    isWaitingForUserQuestion: waitingQuestion,
    pendingInteractionCount: pending.length,
    hasTurnError: session.turnError !== null,
    ...(session.turnError !== null ? { turnError: session.turnError } : {}),
    pendingInteractions: pending.map(pendingInteraction),
    ...(init.worktree ? { worktree: init.worktree } : {}),
    ...(init.branch ? { branch: init.branch } : {}),
    ...(session.prs.length > 0 ? { prs: session.prs } : {}),
    approvalMode: session.approvalMode,
  };
}

export function pendingPrompts(session: Session): Record<string, unknown>[] {
  return session.queue
    .all()
    .filter((e) => !e.settled)
    .map((e) => {
      const media = e.content.filter((b) => b.type !== 'text');
      return {
        promptId: e.promptId,
        text: e.text,
        ...(media.length > 0 ? { content: media } : {}),
        queuedAt: e.queuedAt,
        state: e.state,
        ...(e.originatorClientId ? { originatorClientId: e.originatorClientId } : {}),
      };
    });
}

/** The `Session` body of create/attach/load/resume (docs/client-api.md §5.1). */
export function sessionBody(session: Session, attached: boolean, clientId: string): Record<string, unknown> {
  const init = session.init;
  return {
    sessionId: session.id,
    workspaceCwd: workspaceCwdOf(session),
    attached,
    clientId,
    createdAt: iso(session.createdAt),
    ...(init.cwd && init.cwd !== workspaceCwdOf(session) ? { currentCwd: init.cwd } : {}),
    ...(attached ? { hasActivePrompt: session.hasActivePrompt } : {}),
    ...(init.sourceType !== null ? { sourceType: init.sourceType, sourcePersisted: true } : {}),
    ...(init.sourceId !== null ? { sourceId: init.sourceId } : {}),
    ...(init.worktree ? { worktree: init.worktree, worktreeState: 'persisted-v1' } : {}),
    ...(init.branch ? { branch: init.branch } : {}),
    eventEpoch: session.bus.epoch,
  };
}
