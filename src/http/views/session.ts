import type { Session } from '../../sessions/session.js';
import type { Session as SessionBody, SessionContext, SessionState } from '../openapi.gen.js';
import { modesState } from './modes.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** The `workspaceCwd` clients see: a local workspace's root, a remote workspace's id. */
export function workspaceCwdOf(session: Session): string {
  return session.workspace.kind === 'local' ? session.workspace.root : session.workspace.id;
}

/** The `Session` body of create/attach/load/resume (contract `Session`). */
export function sessionBody(session: Session, attached: boolean, clientId: string): SessionBody {
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
    ...(init.worktree ? { worktree: init.worktree, worktreeState: 'persisted-v1' as const } : {}),
    ...(init.branch ? { branch: init.branch } : {}),
    eventEpoch: session.bus.epoch,
  };
}

/** `SessionState`: models, modes and config options as the driver and the approval mode say. */
export function sessionState(session: Session): SessionState {
  return {
    models: session.models(),
    modes: modesState(session.approvalMode),
    configOptions: [],
    _meta: { harness: session.harness },
  };
}

/** `GET /session/{id}/context` (contract `SessionContext`). */
export function sessionContext(session: Session): SessionContext {
  return { v: 1, sessionId: session.id, workspaceCwd: workspaceCwdOf(session), state: sessionState(session) };
}

/** The `session_snapshot` payload an event stream opens with: both keys always present, string or null. */
export function sessionSnapshot(session: Session): Record<string, unknown> {
  return {
    sessionId: session.id,
    currentModelId: session.models().currentModelId,
    currentApprovalMode: session.approvalMode,
    recordingDegraded: session.recordingDegraded,
  };
}
