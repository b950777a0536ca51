import type { PendingRequest } from '../../sessions/interactions.js';
import type { Session } from '../../sessions/session.js';
import type { PendingInteraction, PendingPrompt, PromptContentBlock, SessionSummary } from '../openapi.gen.js';
import { workspaceCwdOf } from './session.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Status entries use `label` for options, where events use ACP `name`. */
export function pendingInteraction(req: PendingRequest): PendingInteraction {
  const options = req.options.map((o) => ({ optionId: o.optionId, label: o.name, kind: o.kind }));
  if (req.kind === 'user_question') {
    return {
      requestId: req.requestId,
      kind: 'user_question',
      createdAt: iso(req.createdAt),
      title: req.title,
      questions: (req.questions ?? []).map((q) => ({ ...q, options: [...q.options] })),
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
      type: tc.kind as string | undefined,
      title: tc.title as string | undefined,
      content: tc.content ?? [],
      locations: tc.locations ?? [],
      input: tc.rawInput ?? {},
    },
    options,
  };
}

/** `GET /session/{id}/status` (contract `SessionSummary`). */
export function sessionSummary(session: Session): SessionSummary {
  const pending = session.interactions.pending();
  const waitingPermission = pending.some((p) => p.kind === 'permission');
  const waitingQuestion = pending.some((p) => p.kind === 'user_question');
  const init = session.init;
  const { updatedAt, displayName, turnError, prs } = session;
  return {
    sessionId: session.id,
    workspaceCwd: workspaceCwdOf(session),
    createdAt: iso(session.createdAt),
    ...(updatedAt !== null ? { updatedAt: iso(updatedAt) } : {}),
    ...(displayName !== null ? { displayName } : {}),
    ...(init.sourceType !== null ? { sourceType: init.sourceType } : {}),
    ...(init.sourceId !== null ? { sourceId: init.sourceId } : {}),
    clientCount: session.clients.count,
    hasActivePrompt: session.hasActivePrompt,
    activeWorkState: session.hasActivePrompt ? 'active' : 'idle',
    hasRunningBackgroundTasks: false,
    isWaitingForPermission: waitingPermission,
    isWaitingForUserQuestion: waitingQuestion,
    pendingInteractionCount: pending.length,
    hasTurnError: turnError !== null,
    ...(turnError !== null ? { turnError } : {}),
    pendingInteractions: pending.map(pendingInteraction),
    ...(init.worktree ? { worktree: init.worktree } : {}),
    ...(init.branch ? { branch: init.branch } : {}),
    ...(prs.length > 0 ? { prs: prs as SessionSummary['prs'] } : {}),
    approvalMode: session.approvalMode,
    usage: session.usage.snapshot(),
  };
}

/** `GET /session/{id}/pending-prompts` entries (contract `PendingPrompt`). */
export function pendingPrompts(session: Session): PendingPrompt[] {
  return session
    .pendingPrompts()
    .filter((e) => !e.settled)
    .map((e) => {
      const media = e.content.filter((b) => b.type !== 'text') as PromptContentBlock[];
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
