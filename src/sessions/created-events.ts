import { DEFAULT_APPROVAL_MODE, type ApprovalMode } from './approval.js';
import type { CreateSessionRequest, CreatedSession } from './factories.js';
import { availableCommandsEvent } from './slash-commands.js';
import type { Spawned } from './spawn.js';

/**
 * What a fresh session tells its first client (docs/client-api.md §5.1): the approval mode it
 * was asked for, its slash commands, and a model it could not switch to; then the creation's answer.
 */
export function announceCreated(
  created: Spawned,
  req: CreateSessionRequest,
  approvalMode: ApprovalMode,
  clientId: string,
): CreatedSession {
  const { session } = created;
  const sessionId = session.id;
  if (req.approvalMode !== undefined) {
    session.publish({
      type: 'approval_mode_changed',
      originatorClientId: clientId,
      data: { sessionId, previous: DEFAULT_APPROVAL_MODE, next: approvalMode, persisted: false },
    });
  }
  // As qwen serve does at session start: the slash commands a prompt may begin with (docs/client-api.md §8.11).
  if (session.harness === 'built-in') session.publish(availableCommandsEvent(sessionId));
  if (created.modelApplied === false) {
    session.publish({
      type: 'model_switch_failed',
      originatorClientId: clientId,
      data: { sessionId, requestedModelId: req.modelServiceId ?? '', error: created.modelError ?? 'unknown model service' },
    });
  }
  return {
    session,
    attached: false,
    clientId,
    ...(created.modelApplied !== undefined ? { modelApplied: created.modelApplied } : {}),
  };
}
