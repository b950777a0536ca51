import type OpenAI from 'openai';
import type { ContentBlock, HistoryItem } from '../driver.js';
import type { ToolContent, ToolOutcome } from '../../tools/types.js';
import { imagePart, toolResultForModel, userContent } from './content.js';
import { wireSafeName } from './tools.js';
import { compacted, ContextGauge } from './compaction.js';

type Message = OpenAI.Chat.ChatCompletionMessageParam;

/** A tool call as the model asked for it (arguments still text) under its session-unique id. */
export interface AssistantCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** What stands in for a result that never came (a cancelled turn, a record lost in a crash). */
const NO_RESULT: ToolOutcome = {
  ok: false,
  error: { code: 'cancelled', message: 'The tool call did not run: the turn ended first', retryable: false },
};

/**
 * The message list the model sees: the system prompt, then every user,
 * assistant and tool message so far. Kept valid at every step, since
 * chat-completions endpoints refuse an assistant tool call without a
 * matching `tool` message.
 */
export class Conversation {
  private messages: Message[];
  private readonly callIds = new Set<string>();
  /** How many tokens this conversation takes, calibrated by the model's own counts. */
  readonly gauge = new ContextGauge();

  constructor(private readonly systemPrompt: string) {
    this.messages = [{ role: 'system', content: systemPrompt }];
  }

  /** The list to send; the model call reads it, never changes it. */
  view(): readonly Message[] {
    return this.messages;
  }

  /** Takes a compacted message list (agents/builtin/compaction.ts); the system prompt stays first. */
  replace(messages: readonly Message[]): void {
    this.messages = [...messages];
  }

  addUser(blocks: readonly ContentBlock[]): void {
    this.messages.push({ role: 'user', content: userContent(blocks) });
  }

  addAssistant(text: string, calls: readonly AssistantCall[] = []): void {
    if (text === '' && calls.length === 0) return;
    const message: OpenAI.Chat.ChatCompletionAssistantMessageParam = { role: 'assistant', content: text === '' ? null : text };
    if (calls.length > 0) {
      message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    }
    this.messages.push(message);
  }

  /**
   * The results of one assistant message's calls, in call order (a missing one
   * is filled in), then one user message with any images they returned: `tool`
   * messages take only text on most servers.
   */
  addToolResults(calls: readonly AssistantCall[], outcomes: ReadonlyMap<string, ToolOutcome>): void {
    const images: { callId: string; image: Extract<ToolContent, { type: 'image' }> }[] = [];
    for (const call of calls) {
      const { text, images: got } = toolResultForModel(outcomes.get(call.id) ?? NO_RESULT);
      this.messages.push({ role: 'tool', tool_call_id: call.id, content: text });
      for (const image of got) if (image.type === 'image') images.push({ callId: call.id, image });
    }
    if (images.length === 0) return;
    const ids = [...new Set(images.map((i) => i.callId))].join(', ');
    this.messages.push({
      role: 'user',
      content: [
        { type: 'text', text: `Images returned by tool call ${ids}:` },
        ...images.map((i) => imagePart(i.image.data, i.image.mimeType)),
      ],
    });
  }

  /**
   * A session-unique call id (DriverToolCall.toolCallId keys receipts): the
   * model's own id when it is new, else a suffixed one, since some servers
   * number their calls `call_0`, `call_1`… afresh in every answer.
   */
  uniqueCallId(modelId: string | undefined): string {
    const base = modelId && modelId.length > 0 ? modelId : `call_${this.callIds.size + 1}`;
    let id = base;
    for (let n = 2; this.callIds.has(id); n++) id = `${base}_${n}`;
    this.callIds.add(id);
    return id;
  }

  /** Replaces everything after the system prompt with a persisted conversation (load/resume). */
  restore(history: readonly HistoryItem[]): void {
    this.messages = [{ role: 'system', content: this.systemPrompt }];
    this.callIds.clear();
    let pending: AssistantCall[] = [];
    let outcomes = new Map<string, ToolOutcome>();
    const flush = () => {
      if (pending.length > 0) this.addToolResults(pending, outcomes);
      pending = [];
      outcomes = new Map();
    };
    for (const item of history) {
      if (item.kind === 'tool_result') {
        // A result whose call is not open is dropped: the model could not place it.
        if (pending.some((c) => c.id === item.toolCallId)) outcomes.set(item.toolCallId, item.outcome);
        continue;
      }
      flush();
      if (item.kind === 'compaction') {
        // The same rule as the live compaction, so a load continues on the same context.
        this.messages = compacted(this.messages, item.summary, item.keptTurns) ?? this.messages;
      } else if (item.kind === 'user') this.addUser(item.content);
      else {
        const calls = item.toolCalls.map((c) => {
          this.callIds.add(c.toolCallId);
          return { id: c.toolCallId, name: wireSafeName(c.name), arguments: JSON.stringify(c.args) };
        });
        this.addAssistant(item.text, calls);
        pending = calls;
      }
    }
    flush();
  }
}
