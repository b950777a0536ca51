import type OpenAI from 'openai';
import type { Clock } from '../../clock.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { SessionUpdate } from '../driver.js';
import type { ModelProfile } from '../models/service.js';
import { chatChunks } from '../models/chat-stream.js';
import type { ChatPoster } from '../models/chat-post.js';
import { modelError, type ModelCallTarget } from './model-error.js';
import { chatRequestBody, type ChatRequestHead } from './request-body.js';
import { contextUsageUpdate, requestUsage, usageChunk, type RequestUsage } from './usage.js';

/** One streamed answer, assembled. */
export interface ModelAnswer {
  readonly text: string;
  /** Tool calls in the order the model gave them; ids and arguments as the model sent them. */
  readonly toolCalls: readonly { readonly id: string | undefined; readonly name: string; readonly arguments: string }[];
  /** `stop`, `tool_calls`, `length`, `content_filter`…; null when the call was aborted. */
  readonly finishReason: string | null;
  readonly aborted: boolean;
  /** The request's token counts when the endpoint reported them. */
  readonly usage?: RequestUsage;
}

export interface ModelCall {
  readonly client: ChatPoster;
  readonly target: ModelCallTarget;
  readonly messages: readonly OpenAI.Chat.ChatCompletionMessageParam[];
  readonly tools: readonly OpenAI.Chat.ChatCompletionTool[];
  readonly signal: AbortSignal;
  readonly clock: Clock;
  /** Longest silence allowed inside the stream before it counts as stalled. */
  readonly idleTimeoutMs: number;
  /** The model's context window and price (usage events). */
  readonly profile: ModelProfile;
  emit(update: SessionUpdate): void;
}

interface PartialCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

/** Delta fields some OpenAI-compatible servers add: qwen/deepseek `reasoning_content`, vLLM/OpenRouter `reasoning`. */
type ReasoningDelta = { reasoning_content?: unknown; reasoning?: unknown };

/**
 * Streams one chat completion, emitting text and reasoning as they arrive and
 * assembling tool calls from their fragments. Aborting the signal aborts the
 * HTTP request (the server sees the connection close) and ends with `aborted`.
 */
export async function callModel(call: ModelCall): Promise<ModelAnswer> {
  const started = call.clock.now();
  let text = '';
  let finishReason: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  const calls: PartialCall[] = [];
  const byIndex = new Map<number, PartialCall>();
  const aborted = (): ModelAnswer => ({ text, toolCalls: calls, finishReason: null, aborted: true });
  // The client's own timeout ends once the response starts; this one watches the stream itself.
  // One controller for this request, aborted by the turn or by silence. Not `AbortSignal.any`: the
  // `openai` package never removes the abort listener it adds, and on Node 20 a combined signal
  // with a listener is kept alive by Node until it aborts, so every finished call stayed in memory
  // with its request (test/unit/agents/model-call-signals.test.ts).
  const request = new AbortController();
  const stalled = { aborted: false };
  const idle = setTimeout(() => {
    stalled.aborted = true;
    request.abort();
  }, call.idleTimeoutMs);
  const onTurnAbort = () => request.abort();
  if (call.signal.aborted) request.abort();
  else call.signal.addEventListener('abort', onTurnAbort, { once: true });
  const signal = request.signal;
  const stallError = () =>
    new BerthError('model_error', `The model stream stalled: nothing arrived for ${call.idleTimeoutMs} ms`, {
      modelServiceId: call.target.serviceId,
      model: call.target.model,
    });

  try {
    const head: ChatRequestHead = {
      model: call.target.model,
      messages: call.messages as OpenAI.Chat.ChatCompletionMessageParam[],
      stream: true,
      stream_options: { include_usage: true },
    };
    // The body goes as prebuilt text (the tool list's from cache); a failure or an error status
    // throws as the `openai` client's own errors would (chat-post.ts); the stream is parsed here.
    const response = await call.client.post(chatRequestBody(head, call.tools), signal);
    for await (const chunk of chatChunks(response)) {
      idle.refresh();
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta ?? {};
      const r = delta as ReasoningDelta;
      const thought = typeof r.reasoning_content === 'string' ? r.reasoning_content : typeof r.reasoning === 'string' ? r.reasoning : '';
      if (thought !== '') call.emit({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: thought } });
      if (typeof delta.content === 'string' && delta.content !== '') {
        text += delta.content;
        call.emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: delta.content } });
      }
      for (const fragment of delta.tool_calls ?? []) {
        // Servers that omit `index` send each call whole; give each new one its own slot.
        const index = typeof fragment.index === 'number' ? fragment.index : calls.length;
        let partial = byIndex.get(index);
        if (!partial) {
          partial = { id: undefined, name: '', arguments: '' };
          byIndex.set(index, partial);
          calls.push(partial);
        }
        if (fragment.id) partial.id = fragment.id;
        if (fragment.function?.name) partial.name += fragment.function.name;
        if (fragment.function?.arguments) partial.arguments += fragment.function.arguments;
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  } catch (err) {
    if (call.signal.aborted) return aborted();
    if (stalled.aborted) throw stallError();
    throw modelError(err, call.target);
  } finally {
    clearTimeout(idle);
    call.signal.removeEventListener('abort', onTurnAbort);
  }
  if (call.signal.aborted) return aborted();
  if (stalled.aborted) throw stallError();
  if (finishReason === null) {
    throw new BerthError('model_error', 'The model stream ended before the answer was finished (no finish_reason)', {
      modelServiceId: call.target.serviceId,
      model: call.target.model,
    });
  }
  if (!usage) return { text, toolCalls: calls, finishReason, aborted: false };
  const counted = requestUsage(usage, call.profile.price);
  call.emit(usageChunk(counted, call.clock.now() - started));
  call.emit(contextUsageUpdate(counted, call.profile.contextWindow));
  return { text, toolCalls: calls, finishReason, aborted: false, usage: counted };
}
