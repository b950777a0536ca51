import { blocksText, decisionText, type ExportEntry } from './document.js';
import type { ExportWriter } from './writer.js';

/**
 * `format=json` (docs/client-api.md §10.2): one pretty-printed object, the normalised session
 * in qwen's outline — `sessionId`, `startTime`, `messages[]`, `metadata` —
 * where each message is one entry of the conversation. Written in parts with
 * the indentation `JSON.stringify(…, null, 2)` gives the whole object.
 */
export const jsonWriter: ExportWriter = {
  head: (meta) => `{\n  "sessionId": ${JSON.stringify(meta.sessionId)},\n  "startTime": ${JSON.stringify(meta.startTime)},\n  "messages": [`,
  entry: (e, index, meta) => `${index === 0 ? '\n' : ',\n'}    ${JSON.stringify(exportMessage(meta.sessionId, e), null, 2).replace(/\n/g, '\n    ')}`,
  foot: (meta, count) => `${count === 0 ? ']' : '\n  ]'},\n  "metadata": ${JSON.stringify(meta, null, 2).replace(/\n/g, '\n  ')}\n}\n`,
};

/** One entry of the conversation as a JSON message, shared by the json and jsonl exports. */
export function exportMessage(sessionId: string, e: ExportEntry): Record<string, unknown> {
  return {
    uuid: e.recordId,
    sessionId,
    timestamp: new Date(e.at).toISOString(),
    ...(e.promptId ? { promptId: e.promptId } : {}),
    ...message(e),
  };
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
