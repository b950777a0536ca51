import type { DriverToolCall, SessionUpdate, TurnIO } from '../agents/driver.js';
import { BerthError, asBerthError } from '../protocol/errors/index.js';
import type { ToolOutcome } from '../tools/types.js';
import { mustAsk } from './approval.js';
import type { PromptEntry } from './prompt-queue.js';
import type { PermissionAsk, PermissionDecision } from './ports.js';
import { runWorkspaceOf } from './run-workspace.js';
import type { Session } from './session.js';
import { outcomeUpdate, proposedContent, toolKind, toolLocations, toolTitle } from './tool-events.js';

/**
 * Runs one admitted prompt to its single terminal event (spec §6.1 steps 6-7):
 * the start events, the user echo, the driver's turn with its tool calls, then
 * `turn_complete` or `turn_error`.
 */
export async function runPrompt(session: Session, entry: PromptEntry): Promise<void> {
  if (entry.settled) return;
  const { clock } = session.services;
  entry.state = 'running';
  entry.startedAt = clock.now();
  entry.abort = new AbortController();
  session.turnError = null;
  session.services.prompts.started(entry.promptId, entry.startedAt);
  const stamp = { promptId: entry.promptId, originatorClientId: entry.originatorClientId };

  if (entry.waited) {
    session.publish({
      type: 'pending_prompt_started',
      ...stamp,
      data: { sessionId: session.id, promptId: entry.promptId, text: entry.text },
    });
  }
  for (const block of entry.content) {
    session.publish({
      type: 'session_update',
      ...stamp,
      data: {
        sessionId: session.id,
        update: { sessionUpdate: 'user_message_chunk', content: block, _meta: { source: 'prompt-echo' } },
      },
    });
  }

  const emit = (update: SessionUpdate) => {
    if (entry.settled) return; // a deadline already ended this prompt; later output is not published
    session.publish({ type: 'session_update', ...stamp, data: { sessionId: session.id, update } });
  };
  const io: TurnIO = {
    sessionId: session.id,
    promptId: entry.promptId,
    prompt: entry.content,
    signal: entry.abort.signal,
    tools: session.services.tools.definitions(session.guard),
    emit,
    callTool: (call) => callTool(session, entry, call, emit),
  };

  try {
    const result = await session.services.driver.runTurn(io);
    const cancelled = entry.abort.signal.aborted && entry.cancelRequestedAt !== undefined;
    const stopReason = cancelled ? 'cancelled' : result.stopReason;
    session.settle(entry, { stopReason }, cancelled ? cancelledInfo(entry, clock.now()) : {});
  } catch (err) {
    if (entry.cancelRequestedAt !== undefined) {
      session.settle(entry, { stopReason: 'cancelled' }, cancelledInfo(entry, clock.now()));
      return;
    }
    const e = asBerthError(err);
    if (e.status >= 500 && e.code === 'internal_error') {
      session.services.log.error({ err, sessionId: session.id, promptId: entry.promptId }, 'turn failed');
    }
    session.settle(entry, { error: { message: e.message, code: e.code, ...(e.errorKind ? { errorKind: e.errorKind } : {}) } });
  }
}

function cancelledInfo(entry: PromptEntry, now: number): Record<string, unknown> {
  const at = entry.cancelRequestedAt ?? now;
  return { promptCancelled: { cancelledAt: at, elapsedMs: Math.max(0, at - (entry.startedAt ?? at)) } };
}

/**
 * One tool call as clients see it: `tool_call` (pending), a permission request
 * when the approval mode says so, `tool_call_update` in progress, then the
 * outcome. Guard, schema, receipts and the host are the tool layer's business.
 */
async function callTool(
  session: Session,
  entry: PromptEntry,
  call: DriverToolCall,
  emit: (u: SessionUpdate) => void,
): Promise<ToolOutcome> {
  // Locations and diffs name the files where the tool acts: in a worktree session, the worktree.
  const workspace = runWorkspaceOf(session.init);
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
    const decision = await decide(session, entry, call, ask, base);
    if (decision.allow) {
      emit({ sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, status: 'in_progress' });
    }
    return decision;
  };
  let outcome: ToolOutcome;
  try {
    outcome = await session.services.tools.run(call, {
      guard: session.guard,
      signal: entry.abort!.signal,
      permission,
      ask: (q) => askOwner(session, entry, q.question, call.toolCallId),
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
  session: Session,
  entry: PromptEntry,
  call: DriverToolCall,
  ask: PermissionAsk,
  base: { toolCallId: string; title: string; kind: string; locations: { path: string }[] },
): Promise<PermissionDecision> {
  if (!mustAsk(session.approvalMode, ask.tool.policy)) return { allow: true };
  const memory = session.rememberedChoices;
  const known = memory.get(ask.tool.name);
  if (known === 'allow') return { allow: true };
  if (known === 'reject') return { allow: false, reason: `Calls of ${ask.tool.name} are rejected for this session` };
  const resolution = await session.interactions.ask({
    kind: 'permission',
    promptId: entry.promptId,
    originatorClientId: entry.originatorClientId,
    title: base.title,
    toolCall: {
      ...base,
      status: 'pending',
      content: proposedContent(ask.tool.name, ask.args, runWorkspaceOf(session.init)),
      rawInput: call.args,
      _meta: { toolName: call.name, policy: ask.tool.policy, ...(ask.tool.name !== call.name ? { targetTool: ask.tool.name } : {}) },
    },
  });
  switch (resolution.kind) {
    case 'allow_always':
      memory.set(ask.tool.name, 'allow');
      return { allow: true };
    case 'allow_once':
      return { allow: true };
    case 'reject_always':
      memory.set(ask.tool.name, 'reject');
      return { allow: false, reason: `The owner rejected ${ask.tool.name} for this session` };
    case 'reject_once':
      return { allow: false, reason: `The owner rejected this call of ${ask.tool.name}` };
    default:
      return { allow: false, reason: `The permission request was cancelled (${resolution.reason ?? 'cancelled'})` };
  }
}

/** `workspace_ask`: a `user_question` interaction answered through a vote with `answers`. */
async function askOwner(session: Session, entry: PromptEntry, question: string, toolCallId: string): Promise<string> {
  const questions = [{ question, header: 'Question', answerKey: '0', multiSelect: false, options: [] }];
  const resolution = await session.interactions.ask({
    kind: 'user_question',
    promptId: entry.promptId,
    originatorClientId: entry.originatorClientId,
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
