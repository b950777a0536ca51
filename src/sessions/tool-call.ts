import type { CallOptions, DriverToolCall, SessionUpdate } from '../agents/driver.js';
import { BerthError, asBerthError } from '../protocol/errors/index.js';
import type { AllowRule } from '../config/workspace-settings.js';
import type { Policy, ToolOutcome } from '../tools/types.js';
import type { Workspace } from '../workspace/types.js';
import { allowedByRule } from './allow-list.js';
import type { SessionGrants } from './grants.js';
import type { InteractionBook } from './interactions.js';
import { optionsFor, rejectKey } from './permission-options.js';
import type { PermissionAsk, PermissionDecision, SessionTools } from './ports.js';
import { outcomeUpdate, proposedContent, toolKind, toolLocations, toolTitle } from './tool-events.js';

/**
 * What deciding and recording one tool call needs from its session, whoever
 * made the call: a turn's driver, or a client outside any turn (an MCP client
 * speaking for the session, src/mcpserve). Both go through `callTool` below,
 * so the guard, the approval mode, permission requests, remembered choices,
 * receipts and the events on the session's stream are one path.
 */
export interface ToolCallPorts {
  readonly tools: SessionTools;
  readonly interactions: Pick<InteractionBook, 'ask'>;
  /** Where tools act: the workspace, or the session's worktree of it (locations and diffs name its files). */
  readonly runWorkspace: Workspace;
  /** The highest policy the session's approval mode lets run. */
  guard(): Policy;
  /** Whether a call of this policy waits for a person under the session's approval mode. */
  mustAsk(policy: Policy): boolean;
  /** The "always" choices that apply to this session (its own, its workspace's, the user's), kept in the store. */
  readonly grants: SessionGrants;
  /** The workspace's allow-list (config.json `workspaces.<root>.allow`). */
  readonly allowRules: readonly AllowRule[];
}

/** Who a call comes from: the prompt it belongs to (none outside a turn), who sent that, and when to give up. */
export interface CallOrigin {
  readonly promptId: string | undefined;
  readonly originatorClientId: string | undefined;
  readonly signal: AbortSignal;
  /**
   * Set for a caller outside a turn: its permission requests and questions are withdrawn when this aborts.
   * A turn's are withdrawn by its prompt's cancel, deadline or close instead (sessions/prompt-lane.ts).
   */
  readonly withdrawOn?: AbortSignal;
}

/**
 * One tool call as clients see it: `tool_call` (pending), a permission request
 * when the approval mode says so, `tool_call_update` in progress, then the
 * outcome. Guard, schema, receipts and the host are the tool layer's business.
 */
export async function callTool(
  session: ToolCallPorts,
  origin: CallOrigin,
  call: DriverToolCall,
  emit: (u: SessionUpdate) => void,
  options: CallOptions = {},
): Promise<ToolOutcome> {
  const workspace = session.runWorkspace;
  const base = {
    toolCallId: call.toolCallId,
    title: toolTitle(call.name, call.args),
    kind: toolKind(call.name),
    locations: toolLocations(workspace, call.args),
  };
  emit({
    sessionUpdate: 'tool_call',
    ...base,
    status: 'pending',
    content: [],
    rawInput: call.args,
    _meta: { toolName: call.name },
  });
  const permission = async (ask: PermissionAsk): Promise<PermissionDecision> => {
    const decision = options.approved ? { allow: true as const } : await decide(session, origin, call, ask, base);
    if (decision.allow) {
      const why = decision.reason ? { _meta: { permissionReason: decision.reason } } : {};
      emit({ sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, status: 'in_progress', ...why });
    }
    return decision;
  };
  let outcome: ToolOutcome;
  try {
    outcome = await session.tools.run(call, {
      guard: session.guard(),
      signal: origin.signal,
      permission,
      ask: (q) => askOwner(session, origin, q.question, call.toolCallId),
    });
  } catch (err) {
    const e = asBerthError(err);
    outcome = { ok: false, error: { code: e.code, message: e.message, retryable: e.retryable } };
  }
  emit({ sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, ...outcomeUpdate(outcome), _meta: { toolName: call.name } });
  return outcome;
}

/** Whether the call may run: the approval mode, a remembered "always", or a person's vote. */
async function decide(
  session: ToolCallPorts,
  origin: CallOrigin,
  call: DriverToolCall,
  ask: PermissionAsk,
  base: { toolCallId: string; title: string; kind: string; locations: { path: string }[] },
): Promise<PermissionDecision> {
  if (!session.mustAsk(ask.tool.policy)) return { allow: true };
  const tool = ask.tool.name;
  const offer = optionsFor(tool, ask.args);
  const known = await session.grants.verdict(offer.keys, [rejectKey(tool)]);
  if (known?.choice === 'reject') return { allow: false, reason: `Calls of ${tool} are rejected: ${known.label}` };
  if (known?.choice === 'allow') return { allow: true, reason: `remembered choice: ${known.label}` };
  const listed = allowedByRule(session.allowRules, tool, ask.args);
  if (listed) return { allow: true, reason: listed };
  const resolution = await session.interactions.ask({
    kind: 'permission',
    promptId: origin.promptId,
    originatorClientId: origin.originatorClientId,
    ...(origin.withdrawOn ? { signal: origin.withdrawOn } : {}),
    title: base.title,
    options: offer.options,
    toolCall: {
      ...base,
      status: 'pending',
      content: proposedContent(tool, ask.args, session.runWorkspace),
      rawInput: call.args,
      _meta: { toolName: call.name, policy: ask.tool.policy, ...(tool !== call.name ? { targetTool: tool } : {}) },
    },
  });
  const chosen = resolution.outcome.outcome === 'selected' ? offer.grants.get(resolution.outcome.optionId) : undefined;
  if (chosen) await session.grants.record(chosen);
  switch (resolution.kind) {
    case 'allow_always':
      return { allow: true, ...(chosen ? { reason: `the owner chose: ${chosen.label}` } : {}) };
    case 'allow_once':
      return { allow: true };
    case 'reject_always':
      return { allow: false, reason: `The owner rejected ${tool} for this session` };
    case 'reject_once':
      return { allow: false, reason: `The owner rejected this call of ${tool}` };
    default:
      return { allow: false, reason: `The permission request was cancelled (${resolution.reason ?? 'cancelled'})` };
  }
}

/** `workspace_ask`: a `user_question` interaction answered through a vote with `answers`. */
async function askOwner(session: ToolCallPorts, origin: CallOrigin, question: string, toolCallId: string): Promise<string> {
  const questions = [{ question, header: 'Question', answerKey: '0', multiSelect: false, options: [] }];
  const resolution = await session.interactions.ask({
    kind: 'user_question',
    promptId: origin.promptId,
    originatorClientId: origin.originatorClientId,
    ...(origin.withdrawOn ? { signal: origin.withdrawOn } : {}),
    title: 'Ask the owner 1 question',
    questions,
    toolCall: {
      toolCallId,
      title: 'Ask the owner 1 question',
      kind: 'think',
      status: 'pending',
      content: [],
      locations: [],
      rawInput: { question },
      _meta: { toolName: 'workspace_ask', interactionKind: 'user_question', questions },
    },
  });
  const answer = resolution.answers?.['0'];
  if (resolution.kind === 'allow_once' && typeof answer === 'string') return answer;
  throw new BerthError('question_unanswered', `The owner did not answer (${resolution.reason ?? 'cancelled'})`);
}
