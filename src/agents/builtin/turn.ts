import type OpenAI from 'openai';
import type { Clock } from '../../clock.js';
import type { ToolOutcome } from '../../tools/types.js';
import type { TurnIO, TurnResult } from '../driver.js';
import type { Conversation, AssistantCall } from './conversation.js';
import type { ModelProfile } from '../models/service.js';
import type { ChatPoster } from '../models/chat-post.js';
import { callModelWithRetry, type RetryPolicy } from './model-retry.js';
import { compactConversation, type CompactionRun } from './compact-turn.js';
import { isContextOverflow } from './compaction.js';
import type { ModelCallTarget } from './model-error.js';
import { PLAN_TOOL_NAME, planUpdate } from './plan-tool.js';
import { modelTools } from './tools.js';

export interface TurnSetup {
  readonly client: ChatPoster;
  readonly target: ModelCallTarget;
  readonly conversation: Conversation;
  readonly maxIterations: number;
  readonly clock: Clock;
  readonly streamIdleTimeoutMs: number;
  readonly profile: ModelProfile;
  readonly retry: RetryPolicy;
}

const toolError = (code: string, message: string): ToolOutcome => ({ ok: false, error: { code, message, retryable: false } });
const PLAN_OK: ToolOutcome = { ok: true, result: { value: 'ok' } };

/** Tool arguments arrive as text; anything but a JSON object goes back to the model as an error, never a crash. */
function parseArguments(text: string): Record<string, unknown> | string {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    return 'the arguments must be a JSON object';
  } catch (err) {
    return `the arguments are not valid JSON (${(err as Error).message})`;
  }
}

/** Runs one call: the plan tool here, every other tool through the session (guard, permission, receipts). */
async function runCall(io: TurnIO, call: AssistantCall, toolName: (wire: string) => string): Promise<ToolOutcome> {
  const args = parseArguments(call.arguments);
  if (typeof args === 'string') return toolError('invalid_arguments', `${call.name}: ${args}`);
  if (call.name === PLAN_TOOL_NAME) {
    const plan = planUpdate(args);
    if ('error' in plan) return toolError('invalid_arguments', `${PLAN_TOOL_NAME}: ${plan.error}`);
    io.emit(plan.update);
    return PLAN_OK;
  }
  return io.callTool({ toolCallId: call.id, name: toolName(call.name), args });
}

/**
 * The tool-calling loop of one turn (docs/architecture.md, How a prompt flows): ask the
 * model, run the calls it makes in order, feed the results back, and ask again
 * until it answers without calls, runs out of tokens, hits the iteration cap,
 * or the turn is cancelled.
 */
export async function runBuiltinTurn(io: TurnIO, setup: TurnSetup): Promise<TurnResult> {
  const { conversation } = setup;
  if (io.signal.aborted) return { stopReason: 'cancelled' };
  conversation.addUser(io.prompt);
  const tools = modelTools(io.tools);

  const compaction = compactionRun(io, setup);
  for (let iteration = 0; iteration < setup.maxIterations; iteration++) {
    // What the person typed meanwhile follows the tool results it saw, before the model is asked again.
    if (iteration > 0) for (const content of io.takeMidTurnMessages?.() ?? []) conversation.addUser(content);
    if (conversation.gauge.tokens(conversation.view(), tools.tools) > setup.profile.contextWindow * setup.profile.compactFraction) {
      await compactConversation(compaction, 'threshold');
    }
    const answer = await askModel(io, setup, tools.tools, compaction);
    // The messages are still those of the request answered (a retry after an overflow sent the compacted ones).
    if (answer.usage) conversation.gauge.measured(conversation.view(), tools.tools, answer.usage.inputTokens);
    if (answer.aborted) {
      // What was said before the cancel stays in the conversation; unfinished calls are not kept.
      conversation.addAssistant(answer.text);
      return { stopReason: 'cancelled' };
    }
    if (answer.finishReason === 'length') {
      // Cut-off tool arguments cannot be trusted, so only the text is kept.
      conversation.addAssistant(answer.text);
      return { stopReason: 'max_tokens' };
    }
    if (answer.finishReason === 'content_filter') {
      conversation.addAssistant(answer.text);
      return { stopReason: 'refusal' };
    }
    if (answer.toolCalls.length === 0) {
      conversation.addAssistant(answer.text);
      return { stopReason: 'end_turn' };
    }

    const calls: AssistantCall[] = answer.toolCalls.map((c) => ({
      id: conversation.uniqueCallId(c.id),
      name: c.name,
      arguments: c.arguments,
    }));
    conversation.addAssistant(answer.text, calls);
    const outcomes = new Map<string, ToolOutcome>();
    try {
      for (const call of calls) {
        if (io.signal.aborted) break;
        outcomes.set(call.id, await runCall(io, call, tools.toolName));
      }
    } finally {
      // Even when a call throws, every call gets a result so the conversation stays sendable.
      conversation.addToolResults(calls, outcomes);
    }
    if (io.signal.aborted) return { stopReason: 'cancelled' };
  }
  return { stopReason: 'max_turn_requests' };
}

/** The parts of a compaction that stay the same for the whole turn. */
export function compactionRun(io: Pick<TurnIO, 'signal' | 'emit'>, setup: Omit<TurnSetup, 'maxIterations'>): CompactionRun {
  return {
    conversation: setup.conversation,
    call: { client: setup.client, target: setup.target, clock: setup.clock, idleTimeoutMs: setup.streamIdleTimeoutMs, profile: setup.profile },
    retry: setup.retry,
    signal: io.signal,
    emit: (u) => io.emit(u),
  };
}

/**
 * One model request; a "context length exceeded" answer triggers one compaction and one
 * retry of the same request, never a loop (a second overflow fails the turn).
 */
async function askModel(io: TurnIO, setup: TurnSetup, tools: readonly OpenAI.Chat.ChatCompletionTool[], compaction: CompactionRun) {
  const request = () =>
    callModelWithRetry(
      {
        client: setup.client,
        target: setup.target,
        messages: setup.conversation.view(),
        tools,
        signal: io.signal,
        clock: setup.clock,
        idleTimeoutMs: setup.streamIdleTimeoutMs,
        profile: setup.profile,
        emit: (u) => io.emit(u),
      },
      setup.retry,
    );
  try {
    return await request();
  } catch (err) {
    if (!isContextOverflow(err) || (await compactConversation(compaction, 'overflow')) === null) throw err;
    return request();
  }
}
