import type * as acp from '@agentclientprotocol/sdk';
import type { Policy } from '../../tools/types.js';
import type { AgentPermissionRequest, SessionUpdate } from '../driver.js';
import { MAX_SEED_TRANSCRIPT_CHARS } from './limits.js';

/**
 * What an ACP tool kind does, as Berth's approval modes weigh it: reading is
 * `read`, running something is `critical`, anything else changes files (`write`).
 */
export function policyOfKind(kind: string | null | undefined): Policy {
  switch (kind) {
    case 'read':
    case 'search':
    case 'think':
    case 'fetch':
      return 'read';
    case 'execute':
      return 'critical';
    default:
      return 'write';
  }
}

/** An agent's `session/request_permission` as the session decides it; "always" answers are remembered per agent and kind. */
export function permissionRequestOf(agentId: string, params: acp.RequestPermissionRequest): AgentPermissionRequest {
  const toolCall = params.toolCall as unknown as Record<string, unknown>;
  const kind = typeof toolCall.kind === 'string' ? toolCall.kind : 'other';
  return {
    toolCall: { ...toolCall, _meta: { ...(toolCall._meta as object | null | undefined), agent: agentId } },
    options: params.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
    policy: policyOfKind(kind),
    rememberAs: `${agentId}:${kind}`,
  };
}

/** The earlier conversation handed to a fresh agent session that could not be loaded (the newest part when long). */
export function seedBlock(transcript: string): acp.ContentBlock {
  const text = transcript.length > MAX_SEED_TRANSCRIPT_CHARS ? transcript.slice(-MAX_SEED_TRANSCRIPT_CHARS) : transcript;
  return {
    type: 'text',
    text:
      'This conversation continues an earlier session of yours that ended. Its record, as JSON items ' +
      `(user prompts, your replies and tool results), follows; carry on from it.\n<earlier-conversation>\n${text}\n</earlier-conversation>`,
  };
}

/** Tells clients how an external agent's context came back after a restore (issue 12: say which in the event stream). */
export function seededNotice(loaded: boolean): SessionUpdate {
  const text = loaded
    ? 'Berth reloaded the agent\'s own earlier session (session/load).'
    : 'Berth started a fresh agent session seeded with the transcript.';
  return {
    sessionUpdate: 'agent_thought_chunk',
    content: { type: 'text', text },
    _meta: { berth: { restoredBy: loaded ? 'agent_load' : 'transcript_seed' } },
  };
}
