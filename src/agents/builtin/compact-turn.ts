import type { SessionUpdate } from '../driver.js';
import { compacted, KEPT_TURNS, olderPart, SUMMARY_PROMPT, transcriptText } from './compaction.js';
import type { Conversation } from './conversation.js';
import type { ModelCall } from './model-call.js';
import { callModelWithRetry, type RetryPolicy } from './model-retry.js';

/** Why a compaction ran: the threshold was passed, the model refused an overflow, or someone asked (`/compact`). */
export type CompactionReason = 'threshold' | 'overflow' | 'request';

export interface CompactionRun {
  readonly conversation: Conversation;
  /** The model call's fixed parts (client, target, clock, profile, idle timeout); messages and tools are the summary's. */
  readonly call: Omit<ModelCall, 'messages' | 'tools' | 'emit' | 'signal'>;
  readonly retry: RetryPolicy;
  readonly signal: AbortSignal;
  emit(update: SessionUpdate): void;
}

/** What a compaction did, or null when there was nothing older than the kept turns (or it was cancelled). */
export interface CompactionResult {
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

/**
 * Summarises the older part of the conversation with the same model and continues on the
 * summary plus the last turns verbatim (agents/builtin/compaction.ts). The result is emitted as
 * a `context_compacted` session update, which the transcript keeps as its own `compaction`
 * record, so a load rebuilds the same context.
 */
export async function compactConversation(run: CompactionRun, reason: CompactionReason): Promise<CompactionResult | null> {
  const messages = run.conversation.view();
  const older = olderPart(messages, KEPT_TURNS);
  if (!older) return null;
  const answer = await callModelWithRetry(
    {
      ...run.call,
      messages: [
        { role: 'system', content: SUMMARY_PROMPT },
        { role: 'user', content: transcriptText(older) },
      ],
      tools: [],
      signal: run.signal,
      // The summary is Berth's bookkeeping, not an answer: its text is not streamed to clients.
      emit: () => undefined,
    },
    run.retry,
  );
  if (answer.aborted) return null;
  const summary = answer.text.trim();
  const next = compacted(messages, summary, KEPT_TURNS);
  if (!next) return null;
  const gauge = run.conversation.gauge;
  const result = { tokensBefore: gauge.tokens(messages), tokensAfter: gauge.tokens(next) };
  run.conversation.replace(next);
  run.emit({ sessionUpdate: 'context_compacted', reason, summary, keptTurns: KEPT_TURNS, ...result });
  return result;
}
