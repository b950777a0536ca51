import type { InboxMessage } from './records.js';
import { done } from './answer.js';
import type { MessagingContext } from './context.js';
import { handedOver } from './delivery.js';
import { messageInWords } from './header.js';
import type { Answer, Received } from './types.js';

/**
 * docs/modules.md `inbox`: takes the asking tab's messages, oldest first. Taking
 * hands them to the agent: their chains continue from it, and each appears on
 * its event stream and transcript. Works for a session that is not open, so
 * an agent can collect what waited for it across a daemon restart.
 */
export async function takeInbox(ctx: MessagingContext, sessionId: string, now: number): Promise<Answer> {
  const tab = ctx.tabs.get(sessionId);
  const messages = await ctx.inbox.takeAll(sessionId, tab !== undefined);
  handedOver(ctx, tab, messages, now);
  if (tab) tab.trouble = null;
  return answerWith(messages, 'taken');
}

/** docs/modules.md `peek`: the same messages, left where they are. */
export async function peekInbox(ctx: MessagingContext, sessionId: string): Promise<Answer> {
  return answerWith(await ctx.inbox.list(sessionId), 'left in the inbox');
}

function answerWith(messages: readonly InboxMessage[], how: string): Answer {
  const received: Received[] = messages.map((m) => ({
    from: m.fromLabel,
    tab: String(m.fromTab),
    kind: m.kind,
    text: m.text,
    sentAt: new Date(m.sentAt).toISOString(),
  }));
  if (messages.length === 0) return done('Your inbox is empty.', { messages: received });
  const count = messages.length === 1 ? '1 message' : `${messages.length} messages`;
  return done(`${count}, oldest first (${how}):\n\n${messages.map(messageInWords).join('\n\n')}`, { messages: received });
}
