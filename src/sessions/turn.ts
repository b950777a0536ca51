import type { AgentDriver, CallOptions, DriverToolCall, SessionUpdate, TurnIO } from '../agents/driver.js';
import type { Clock } from '../clock.js';
import { BerthError, asBerthError } from '../protocol/errors/index.js';
import type { PublishInput } from '../events/types.js';
import type { Logger } from '../log.js';
import type { Policy, ToolOutcome } from '../tools/types.js';
import type { Workspace } from '../workspace/types.js';
import type { InteractionBook } from './interactions.js';
import type { PromptTerminalInput } from './prompt-lane.js';
import type { PromptEntry } from './prompt-queue.js';
import type { PermissionAsk, PermissionDecision, SessionTools } from './ports.js';
import type { PromptRepository } from './records.js';
import type { AllowRule } from '../config/workspace-settings.js';
import { allowedByRule } from './allow-list.js';
import type { SessionGrants } from './grants.js';
import { optionsFor, rejectKey } from './permission-options.js';
import { parseCommand, runCommand, type CommandTarget } from './slash-commands.js';
import { meteredUpdate, type UsageMeter } from './usage.js';
import { decideAgentPermission } from './agent-permission.js';
import { outcomeUpdate, proposedContent, toolKind, toolLocations, toolTitle } from './tool-events.js';

/** What a turn needs from its session: named here, so a turn never reaches into the session itself. */
export interface TurnPorts {
  readonly sessionId: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly driver: Pick<AgentDriver, 'runTurn' | 'compact'>;
  readonly tools: SessionTools;
  readonly prompts: Pick<PromptRepository, 'started'>;
  readonly interactions: Pick<InteractionBook, 'ask'>;
  /** Where tools act: the workspace, or the session's worktree of it (locations and diffs name its files). */
  readonly runWorkspace: Workspace;
  /** The session's token and cost totals, fed by the driver's usage updates. */
  readonly usage: UsageMeter;
  /** What slash commands act on (docs/client-api.md §8.11); absent when the agent has its own (an external one). */
  readonly commands?: CommandTarget;
  /** The highest policy the session's approval mode lets run. */
  guard(): Policy;
  /** Whether a call of this policy waits for a person under the session's approval mode. */
  mustAsk(policy: Policy): boolean;
  /** The "always" choices that apply to this session (its own, its workspace's, the user's), kept in the store. */
  readonly grants: SessionGrants;
  /** The workspace's allow-list (config.json `workspaces.<root>.allow`). */
  readonly allowRules: readonly AllowRule[];
  publish(input: PublishInput): void;
  /** Publishes the prompt's one terminal event (never twice). */
  settle(entry: PromptEntry, terminal: PromptTerminalInput, extra?: Record<string, unknown>): void;
  /** The prompt starts running: a previous turn's error no longer describes the session. */
  started(): void;
}

/**
 * Runs one admitted prompt to its single terminal event (docs/client-api.md §6.1 steps 6-7):
 * the start events, the user echo, the driver's turn with its tool calls, then
 * `turn_complete` or `turn_error`.
 */
export async function runPrompt(session: TurnPorts, entry: PromptEntry): Promise<void> {
  if (entry.settled) return;
  const { clock } = session;
  entry.state = 'running';
  entry.startedAt = clock.now();
  entry.abort = new AbortController();
  session.started();
  session.prompts.started(entry.promptId, entry.startedAt);
  const stamp = { promptId: entry.promptId, originatorClientId: entry.originatorClientId };

  if (entry.waited) {
    session.publish({
      type: 'pending_prompt_started',
      ...stamp,
      data: { sessionId: session.sessionId, promptId: entry.promptId, text: entry.text },
    });
  }
  for (const block of entry.content) {
    session.publish({
      type: 'session_update',
      ...stamp,
      data: {
        sessionId: session.sessionId,
        update: { sessionUpdate: 'user_message_chunk', content: block, _meta: { source: 'prompt-echo' } },
      },
    });
  }

  const emit = (update: SessionUpdate) => {
    if (entry.settled) return; // a deadline already ended this prompt; later output is not published
    const metered = meteredUpdate(session.usage, update);
    session.publish({ type: 'session_update', ...stamp, data: { sessionId: session.sessionId, update: metered } });
  };
  const io: TurnIO = {
    sessionId: session.sessionId,
    promptId: entry.promptId,
    prompt: entry.content,
    signal: entry.abort.signal,
    tools: session.tools.definitions(session.guard()),
    emit,
    callTool: (call, options) => callTool(session, entry, call, options?.announce === false ? () => {} : emit, options),
    askPermission: (request) => decideAgentPermission(session, entry, request),
  };

  const command = session.commands ? parseCommand(entry.text) : null;
  if (command) {
    // A slash command is answered by the session itself: no model request.
    const compact = command.name === 'compact' ? session.driver.compact?.bind(session.driver) : undefined;
    const answer = compact ? await compact(io).catch((err: unknown) => `/compact failed: ${asBerthError(err).message}`) : await runCommand(session.commands!, command, entry.originatorClientId);
    emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: answer }, _meta: { source: 'slash-command' } });
    session.settle(entry, { stopReason: 'end_turn' }, { usage: session.usage.endTurn() });
    return;
  }

  try {
    const result = await session.driver.runTurn(io);
    const cancelled = entry.abort.signal.aborted && entry.cancelRequestedAt !== undefined;
    const stopReason = cancelled ? 'cancelled' : result.stopReason;
    const usage = session.usage.endTurn();
    session.settle(entry, { stopReason }, { ...(cancelled ? cancelledInfo(entry, clock.now()) : {}), usage });
  } catch (err) {
    const usage = session.usage.endTurn();
    if (entry.cancelRequestedAt !== undefined) {
      session.settle(entry, { stopReason: 'cancelled' }, { ...cancelledInfo(entry, clock.now()), usage });
      return;
    }
    const e = asBerthError(err);
    if (e.status >= 500 && e.code === 'internal_error') {
      session.log.error({ err, sessionId: session.sessionId, promptId: entry.promptId }, 'turn failed');
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
  session: TurnPorts,
  entry: PromptEntry,
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
    const decision = options.approved ? { allow: true as const } : await decide(session, entry, call, ask, base);
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
  session: TurnPorts,
  entry: PromptEntry,
  call: DriverToolCall,
  ask: PermissionAsk,
  base: { toolCallId: string; title: string; kind: string; locations: { path: string }[] },
): Promise<PermissionDecision> {
  if (!session.mustAsk(ask.tool.policy)) return { allow: true };
  const tool = ask.tool.name;
  const offer = optionsFor(tool, ask.args);
  const known = session.grants.verdict(offer.keys, [rejectKey(tool)]);
  if (known?.choice === 'reject') return { allow: false, reason: `Calls of ${tool} are rejected: ${known.label}` };
  if (known?.choice === 'allow') return { allow: true, reason: `remembered choice: ${known.label}` };
  const listed = allowedByRule(session.allowRules, tool, ask.args);
  if (listed) return { allow: true, reason: listed };
  const resolution = await session.interactions.ask({
    kind: 'permission',
    promptId: entry.promptId,
    originatorClientId: entry.originatorClientId,
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
  if (chosen) session.grants.record(chosen);
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
async function askOwner(session: TurnPorts, entry: PromptEntry, question: string, toolCallId: string): Promise<string> {
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
