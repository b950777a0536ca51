import { parseCommand } from './slash-commands.js';
import type { ContentBlock, DriverToolCall, HistoryItem } from '../agents/driver.js';
import type { TranscriptRecord } from '../transcript/records.js';
import type { ToolContent, ToolOutcome } from '../tools/types.js';
import { liveRecords } from './rewound.js';

/**
 * A persisted conversation as a driver rebuilds its model context from it
 * (a resumed
 * conversation continues with everything said and done before, tool results
 * included).
 *
 * One model answer is recorded as its text (`agent_message`, which the
 * call's usage chunk closes even when there is no text) followed by the
 * `tool_call` records of the calls it made, each followed by its
 * `tool_result`. So a `tool_call` belongs to the latest assistant message of
 * its turn; results are placed after the message that made the calls. A
 * server that sends neither text nor usage leaves no boundary between two
 * answers: their calls then share one message, which is still a valid
 * conversation (every call answered, in order).
 *
 * What a rewind undid is left out (src/sessions/rewound.ts), so a load after a rewind
 * rebuilds the rewound context.
 */
export function historyFromRecords(records: readonly TranscriptRecord[]): HistoryItem[] {
  const items: HistoryItem[] = [];
  // The assistant message tool calls attach to; reset by anything that closes it.
  let open: { text: string; toolCalls: DriverToolCall[] } | null = null;

  const startAssistant = (text: string): { text: string; toolCalls: DriverToolCall[] } => {
    const message = { text, toolCalls: [] as DriverToolCall[] };
    items.push({ kind: 'assistant', text: message.text, toolCalls: message.toolCalls });
    return message;
  };

  // A slash command's turn was answered by the session, never seen by the model: it stays out of the context.
  let inCommand = false;
  for (const r of liveRecords(records)) {
    if (r.unreadable) continue;
    if (inCommand && r.kind !== 'turn_end' && r.kind !== 'compaction') continue;
    // A call outside any turn (an MCP client on the session, sessions/outside-call.ts) was not the model's: not its context.
    if ((r.kind === 'tool_call' || r.kind === 'tool_result') && r.promptId === null) continue;
    switch (r.kind) {
      case 'user_prompt': {
        const content = blocks(r.data.content);
        const only = content.length === 1 && content[0]!.type === 'text' ? String(content[0]!.text) : null;
        if (only !== null && parseCommand(only)) {
          inCommand = true;
          break;
        }
        items.push({ kind: 'user', content });
        open = null;
        break;
      }
      case 'mid_turn_message':
        // Typed while the turn ran and handed to the model before its next request: a user message in place.
        items.push({ kind: 'user', content: blocks(r.data.content) });
        open = null;
        break;
      case 'agent_message': {
        const text = typeof r.data.text === 'string' ? r.data.text : '';
        // A usage-only record still marks the end of one model call: the calls after it are the next answer's.
        open = startAssistant(text);
        break;
      }
      case 'tool_call': {
        if (open === null) open = startAssistant('');
        const call: DriverToolCall = {
          toolCallId: String(r.data.toolCallId ?? ''),
          name: String(r.data.name ?? r.data.title ?? 'unknown_tool'),
          args: isObject(r.data.args) ? r.data.args : {},
        };
        open.toolCalls.push(call);
        break;
      }
      case 'tool_result':
        items.push({ kind: 'tool_result', toolCallId: String(r.data.toolCallId ?? ''), outcome: outcomeOf(r.data) });
        break;
      case 'turn_end':
        open = null;
        inCommand = false;
        break;
      case 'compaction':
        items.push({ kind: 'compaction', summary: String(r.data.summary ?? ''), keptTurns: Number(r.data.keptTurns) || 1 });
        open = null;
        break;
      default:
        break;
    }
  }
  return items.filter((i) => i.kind !== 'assistant' || i.text !== '' || i.toolCalls.length > 0);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function blocks(v: unknown): ContentBlock[] {
  if (!Array.isArray(v)) return [];
  return v.filter((b): b is ContentBlock => isObject(b) && typeof b.type === 'string');
}

/**
 * A recorded result as the outcome the model saw: a failure carries its error in
 * `rawOutput` (src/sessions/tool-events.ts `outcomeUpdate`), a success its value
 * there and its model-facing text and images in `content`.
 */
function outcomeOf(d: Record<string, unknown>): ToolOutcome {
  const raw = isObject(d.rawOutput) ? d.rawOutput : undefined;
  if (d.status === 'failed') {
    const error = isObject(raw?.error) ? raw.error : {};
    return {
      ok: false,
      error: {
        code: typeof error.code === 'string' ? error.code : 'tool_failed',
        message: typeof error.message === 'string' ? error.message : 'The tool failed',
        retryable: error.retryable === true,
      },
    };
  }
  const content: ToolContent[] = [];
  for (const item of Array.isArray(d.content) ? d.content : []) {
    const c = isObject(item) && isObject(item.content) ? item.content : undefined;
    if (c?.type === 'text' && typeof c.text === 'string') content.push({ type: 'text', text: c.text });
    if (c?.type === 'image' && typeof c.data === 'string' && typeof c.mimeType === 'string') {
      content.push({ type: 'image', data: c.data, mimeType: c.mimeType });
    }
  }
  return { ok: true, result: { value: d.rawOutput ?? null, ...(content.length > 0 ? { content } : {}) } };
}
