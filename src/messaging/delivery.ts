import { asBerthError } from '../protocol/errors/index.js';
import type { InboxMessage } from './records.js';
import type { MessagingContext } from './context.js';
import { messagePrompt } from './header.js';
import type { Tab } from './tabs.js';

/**
 * Delivery to agents (docs/modules.md, Delivery): a message for a
 * `prompt` tab is offered as its next prompt once the session is idle — one
 * message per prompt, oldest first — and waits in the inbox while the session
 * works. Nothing is lost on the way: the message leaves the inbox only after
 * the session admitted its prompt (a crash between the two offers it again).
 */
export function offerNext(ctx: MessagingContext, tab: Tab, now: number): Promise<InboxMessage | undefined> {
  // One offer of a tab at a time: two offers reading the same oldest message must not both submit it.
  const offer = tab.offering.then(() => offerOnce(ctx, tab, now));
  tab.offering = offer.then(
    () => undefined,
    () => undefined,
  );
  return offer;
}

/** `offerNext` from a step that does not wait for it (a session opened or went idle): a failure is logged. */
export function offerLater(ctx: MessagingContext, tab: Tab, now: number): void {
  offerNext(ctx, tab, now).catch((err: unknown) => ctx.log.error({ err, sessionId: tab.session.id }, 'module message offer failed'));
}

async function offerOnce(ctx: MessagingContext, tab: Tab, now: number): Promise<InboxMessage | undefined> {
  const { session } = tab;
  // Until this offer reads the inbox empty, a message may wait there for the session's next idle.
  tab.mayHaveMail = true;
  if (tab.delivery !== 'prompt' || session.closed || session.hasActivePrompt) return undefined;
  const message = await ctx.inbox.oldest(session.id);
  if (session.closed || session.hasActivePrompt) return undefined;
  if (!message) {
    // A message stored during the read is offered by its own offer, queued behind this one.
    tab.mayHaveMail = false;
    tab.trouble = null;
    return undefined;
  }
  let promptId: string;
  try {
    // A prompt authored by the daemon: no client id; the header says who wrote it.
    promptId = (await session.submit(messagePrompt(message), {})).promptId;
  } catch (err) {
    tab.trouble = troubleOf(err);
    ctx.log.debug({ sessionId: session.id, err }, 'module message not delivered');
    return undefined;
  }
  await ctx.inbox.take(message.id, session.id);
  tab.trouble = null;
  handedOver(ctx, tab, [message], now, promptId);
  return message;
}

/**
 * Records that messages reached their receiver's agent (as a prompt, or taken
 * with `inbox`): their chain continues from it (rules.ts), and each appears on
 * the receiver's event stream and transcript as a `module_message`.
 */
export function handedOver(ctx: MessagingContext, tab: Tab | undefined, messages: readonly InboxMessage[], now: number, promptId?: string): void {
  for (const m of messages) {
    ctx.rules.recordReceived(m.toSessionId, m.hop, now);
    tab?.session.publish({
      type: 'module_message',
      ...(promptId !== undefined ? { promptId } : {}),
      data: {
        sessionId: m.toSessionId,
        direction: 'in',
        messageId: m.id,
        fromTab: String(m.fromTab),
        from: m.fromLabel,
        kind: m.kind,
        text: m.text,
        hop: m.hop,
        sentAt: new Date(m.sentAt).toISOString(),
        delivery: promptId !== undefined ? 'prompt' : 'inbox',
      },
    });
  }
}

/** Why a prompt could not be submitted, in words another agent is shown (`Listed.trouble`). */
function troubleOf(err: unknown): string {
  const e = asBerthError(err);
  switch (e.code) {
    case 'prompt_queue_full':
      return 'its prompt queue is full';
    case 'session_not_found':
    case 'session_closing':
      return 'its session is closing';
    default:
      return `its session refused the prompt: ${e.message}`;
  }
}
