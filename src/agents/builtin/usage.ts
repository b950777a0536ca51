import type OpenAI from 'openai';
import type { ModelPrice } from '../../config/model-services.js';
import type { SessionUpdate, TokenUsage } from '../driver.js';

/** The token counts of one model request. */
export type RequestUsage = TokenUsage;

const PER_MILLION = 1_000_000;

/** What the request cost under `price`: cached prompt tokens at their own price when one is given. */
export function requestCost(usage: Omit<RequestUsage, 'cost'>, price: ModelPrice): { amount: number; currency: string } {
  const cached = Math.min(usage.cachedReadTokens, usage.inputTokens);
  const amount =
    ((usage.inputTokens - cached) * price.inputPerMillion +
      cached * (price.cachedInputPerMillion ?? price.inputPerMillion) +
      usage.outputTokens * price.outputPerMillion) /
    PER_MILLION;
  return { amount, currency: price.currency ?? 'USD' };
}

/** An OpenAI usage chunk in qwen's names, priced when a price is known. */
export function requestUsage(usage: OpenAI.CompletionUsage, price: ModelPrice | undefined): RequestUsage {
  const counts = {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
    thoughtTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
    cachedReadTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  };
  return price ? { ...counts, cost: requestCost(counts, price) } : counts;
}

/** qwen's per-call usage record (docs/client-api.md §8.1): an empty agent_message_chunk carrying `_meta.usage` and `_meta.durationMs`. */
export function usageChunk(usage: RequestUsage, durationMs: number): SessionUpdate {
  return {
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: '' },
    _meta: { usage, durationMs },
  };
}

/**
 * qwen's `usage_update` (docs/client-api.md §8.1): how full the model's context is — `used`
 * tokens (the last request's prompt) of `size`. The session adds the totals and the cost so far.
 */
export function contextUsageUpdate(usage: RequestUsage, contextWindow: number): SessionUpdate {
  return { sessionUpdate: 'usage_update', used: usage.inputTokens, size: contextWindow };
}
