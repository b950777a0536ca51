import type { AgentPermissionOption, AgentPermissionOutcome, AgentPermissionRequest } from '../agents/driver.js';
import { policyAllows } from '../protocol/tools/types.js';
import { rejectKey } from './permission-options.js';
import type { PromptEntry } from './prompt-queue.js';
import type { TurnPorts } from './turn.js';

/**
 * An external agent's `session/request_permission` (issue 12) as the session
 * decides it: the guard first (plan mode refuses anything but reads), then
 * the approval mode (no question when it would not ask for
 * a built-in call of the same policy), then a remembered "always" choice, then
 * a `permission_request` event carrying the agent's own options. Berth keeps
 * "always" answers itself and answers the agent once per call, so the agent
 * never holds a standing grant the session's mode could not take back.
 */
export async function decideAgentPermission(
  session: TurnPorts,
  entry: PromptEntry,
  request: AgentPermissionRequest,
): Promise<AgentPermissionOutcome> {
  const pick = (allow: boolean): AgentPermissionOutcome => {
    const option = onceOption(request.options, allow);
    return option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' };
  };
  // Plan mode's guard holds for what the agent does itself too: nothing above it is allowed, and nobody is asked.
  if (!policyAllows(session.guard(), request.policy)) return pick(false);
  if (!session.mustAsk(request.policy)) return pick(true);
  const key = `agent:${request.rememberAs}`;
  const known = await session.grants.verdict([key], [rejectKey(key)]);
  if (known !== undefined) return pick(known.choice === 'allow');
  const toolCall = request.toolCall;
  const resolution = await session.interactions.ask({
    kind: 'permission',
    promptId: entry.promptId,
    originatorClientId: entry.originatorClientId,
    title: typeof toolCall.title === 'string' ? toolCall.title : request.rememberAs,
    toolCall: { ...toolCall, _meta: { ...(toolCall._meta as object | undefined), policy: request.policy } },
    options: request.options,
  });
  switch (resolution.kind) {
    case 'allow_always':
      await session.grants.record({ scope: 'session', keys: [key], choice: 'allow', label: `always allowed for ${request.rememberAs} in this session` });
      return pick(true);
    case 'reject_always':
      await session.grants.record({ scope: 'session', keys: [rejectKey(key)], choice: 'reject', label: `always rejected for ${request.rememberAs} in this session` });
      return pick(false);
    case 'allow_once':
    case 'reject_once':
      return resolution.outcome;
    default:
      return { outcome: 'cancelled' };
  }
}

/** The agent's one-time option of that sense, else its "always" one (an agent that offers only those). */
function onceOption(options: readonly AgentPermissionOption[], allow: boolean): AgentPermissionOption | undefined {
  const [once, always] = allow ? (['allow_once', 'allow_always'] as const) : (['reject_once', 'reject_always'] as const);
  return options.find((o) => o.kind === once) ?? options.find((o) => o.kind === always);
}
