import type OpenAI from 'openai';

/** A streamed chat completion request without its tool list. */
export type ChatRequestHead = Omit<OpenAI.Chat.ChatCompletionCreateParamsStreaming, 'tools'>;

/** Each function tool's JSON text, held as long as the tool object is (tools.ts hands out the same one turn after turn). */
const toolJson = new WeakMap<object, string>();

function jsonOf(tool: OpenAI.Chat.ChatCompletionTool): string {
  let text = toolJson.get(tool);
  if (text === undefined) {
    text = JSON.stringify(tool);
    toolJson.set(tool, text);
  }
  return text;
}

/**
 * The JSON text of one request. The tool list (every tool's schema) is most of
 * a short conversation's request and the same each turn, so its text is joined
 * from what earlier requests serialised; the messages are serialised each time
 * (keeping every message's text as well would double a long history in memory).
 */
export function chatRequestBody(head: ChatRequestHead, tools: readonly OpenAI.Chat.ChatCompletionTool[]): string {
  const text = JSON.stringify(head);
  if (tools.length === 0) return text;
  return `${text.slice(0, -1)},"tools":[${tools.map(jsonOf).join(',')}]}`;
}
