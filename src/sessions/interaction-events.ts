import type { PublishInput } from '../events/types.js';
import type { InteractionEvents, Outcome, PendingRequest, Resolution } from './interactions.js';

/**
 * How a session's interactions appear on its stream (docs/client-api.md §8.2, §9):
 * `permission_request`, `permission_resolved` (saying why when no one voted,
 * e.g. `reason: "timeout"`), and `permission_already_resolved` for late votes.
 */
export function interactionEventsOf(sessionId: string, publish: (input: PublishInput) => void): InteractionEvents {
  return {
    requested: (req: PendingRequest) => {
      publish({
        type: 'permission_request',
        promptId: req.promptId,
        originatorClientId: req.originatorClientId,
        data: { requestId: req.requestId, sessionId, toolCall: req.toolCall, options: req.options },
      });
    },
    resolved: (req: PendingRequest, r: Resolution) => {
      publish({
        type: 'permission_resolved',
        promptId: req.promptId,
        originatorClientId: r.voterClientId,
        data: {
          requestId: req.requestId,
          sessionId,
          outcome: r.outcome,
          ...(r.voterClientId ? { voterClientId: r.voterClientId } : {}),
          ...(r.reason ? { reason: r.reason } : {}),
          ...(r.reason === 'timeout' ? { timedOut: true } : {}),
        },
      });
    },
    alreadyResolved: (requestId: string, promptId: string | undefined, outcome: Outcome) => {
      publish({
        type: 'permission_already_resolved',
        promptId,
        data: { requestId, sessionId, outcome },
      });
    },
  };
}
