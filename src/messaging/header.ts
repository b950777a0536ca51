import type { ContentBlock } from '../agents/driver.js';
import type { InboxMessage } from './records.js';
import type { MessageKind } from './types.js';

/** The built-in agent's tool names for the module operations (src/messaging/agent-tools.ts). */
export const TABS_LIST_TOOL = 'tabs_list';
export const TABS_SEND_TOOL = 'tabs_send';
export const TABS_INBOX_TOOL = 'tabs_inbox';

/** docs/modules.md Kind: whether anyone waits on the receiver, and how to answer. */
function howToAnswer(kind: MessageKind, fromTab: number): string {
  const tab = `tab "${fromTab}"`;
  switch (kind) {
    case 'question':
      return `Tab ${fromTab} waits for your answer: reply with ${TABS_SEND_TOOL} to ${tab}, kind "answer".`;
    case 'task':
      return `Tab ${fromTab} waits for your report: when the task is done, send it with ${TABS_SEND_TOOL} to ${tab}, kind "report".`;
    case 'report':
      return 'It reports on a task given earlier; nobody waits for an answer.';
    case 'answer':
      return 'It answers a question asked earlier; nobody waits for an answer.';
    case 'info':
      return 'It is for your information; nobody waits for an answer.';
  }
}

/**
 * The header a message arrives under (docs/modules.md Kind): who sent it, its kind,
 * and whether the sender waits for an answer and how to give one. The sender's
 * tab number comes from Berth, never from the message text, so an agent can
 * trust who wrote it.
 */
export function messageHeader(m: Pick<InboxMessage, 'fromTab' | 'fromLabel' | 'kind'>): string {
  return `[Message from tab ${m.fromTab} (${m.fromLabel}), kind: ${m.kind}. ${howToAnswer(m.kind, m.fromTab)}]`;
}

/** A message as the prompt Berth submits for it: the header, a blank line, the text. */
export function messagePrompt(m: InboxMessage): ContentBlock[] {
  return [
    {
      type: 'text',
      text: `${messageHeader(m)}\n\n${m.text}`,
      _meta: { berthModuleMessage: { messageId: m.id, fromTab: String(m.fromTab), kind: m.kind } },
    },
  ];
}

/** A message as an inbox or peek answer tells it in words. */
export function messageInWords(m: InboxMessage): string {
  return `${messageHeader(m)}\n${m.text}`;
}
