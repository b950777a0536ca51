import { blocksText, decisionText, type ExportDocument, type ExportEntry } from './document.js';

/**
 * `format=json` (docs/client-api.md §10.2): one pretty-printed object, the normalised session
 * in qwen's outline — `sessionId`, `startTime`, `messages[]`, `metadata` —
 * where each message is one entry of the conversation.
 */
export function renderJson(doc: ExportDocument): string {
  return `${JSON.stringify({ sessionId: doc.meta.sessionId, startTime: doc.meta.startTime, messages: exportMessages(doc), metadata: doc.meta }, null, 2)}\n`;
}

/** The conversation as JSON messages, shared by the json and jsonl exports. */
export function exportMessages(doc: ExportDocument): Record<string, unknown>[] {
  return doc.entries.map((e) => ({
    uuid: e.recordId,
    sessionId: doc.meta.sessionId,
    timestamp: new Date(e.at).toISOString(),
    ...(e.promptId ? { promptId: e.promptId } : {}),
    ...message(e),
  }));
}

function message(e: ExportEntry): Record<string, unknown> {
  switch (e.kind) {
    case 'user':
      return { type: 'user', message: { role: 'user', parts: [{ text: blocksText(e.blocks) }] }, content: e.blocks };
    case 'assistant':
      return { type: 'assistant', message: { role: 'assistant', parts: [{ text: e.text }] } };
    case 'thought':
      return { type: 'assistant', message: { role: 'thinking', parts: [{ text: e.text }] } };
    case 'tool':
      return {
        type: 'tool_call',
        toolCall: {
          toolCallId: e.toolCallId,
          name: e.name,
          kind: e.toolKind,
          title: e.title,
          status: e.status,
          rawInput: e.args,
          output: e.output,
          ...(e.rawOutput !== undefined ? { rawOutput: e.rawOutput } : {}),
        },
      };
    case 'permission':
      return {
        type: 'permission',
        permission: {
          requestId: e.requestId,
          title: e.title,
          ...(e.question ? { question: e.question } : {}),
          options: e.options,
          decision: e.decision,
          summary: decisionText(e.decision),
        },
      };
    case 'plan':
      return { type: 'plan', plan: { entries: e.entries } };
    case 'event':
      return { type: 'event', event: { title: e.title, detail: e.detail } };
    case 'turn_end':
      return {
        type: 'turn_end',
        turnEnd: {
          stopReason: e.stopReason,
          error: e.error,
          interrupted: e.interrupted,
          ...(e.unstartedPrompt !== null ? { unstartedPrompt: e.unstartedPrompt } : {}),
        },
      };
    case 'unreadable':
      return { type: 'unreadable' };
  }
}
