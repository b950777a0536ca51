import { MODULE_MOST_TEXT } from '../protocol/limits.js';
import { done, refused } from './answer.js';
import type { MessagingContext } from './context.js';
import { offerNext } from './delivery.js';
import { networkAllows, NETWORK_REFUSAL, type Verdict } from './rules.js';
import { labelOf, nameOf, tabName, titleOf, type Tab } from './tabs.js';
import { ALL, type Answer, type MessageKind, type Outcome } from './types.js';

export interface SendRequest {
  readonly to: string;
  readonly text: string;
  readonly kind: MessageKind;
}

/**
 * docs/modules.md `send`: one message to one tab, or to every other tab with `all`
 * (then one outcome per tab). The text limit and the sender's rules (chain,
 * pace) refuse the whole send; the network rule is asked per receiver. The
 * answer and a `module_message` event on the sender's stream say what
 * happened, refusals included.
 */
export async function send(ctx: MessagingContext, from: Tab, request: SendRequest, now: number): Promise<Answer> {
  const answer = await decide(ctx, from, request, now);
  from.session.publish({
    type: 'module_message',
    ...runningPrompt(from),
    data: {
      sessionId: from.session.id,
      direction: 'out',
      to: request.to,
      kind: request.kind,
      text: request.text,
      ok: answer.ok,
      result: answer.text,
      ...(answer.code ? { code: answer.code } : {}),
      ...(answer.sent ? { sent: answer.sent } : {}),
    },
  });
  return answer;
}

async function decide(ctx: MessagingContext, from: Tab, request: SendRequest, now: number): Promise<Answer> {
  const length = codePoints(request.text);
  if (request.text.trim() === '') return refused('invalid_request', 'Refused: a message needs some text.');
  if (length > MODULE_MOST_TEXT) {
    return refused(
      'message_too_long',
      `Refused: the message has ${length} characters; at most ${MODULE_MOST_TEXT} are taken. Put long material in a file of the workspace and send its path.`,
    );
  }
  if (request.to === ALL) {
    const others = otherTabs(ctx, from);
    if (others.length === 0) return refused('unknown_tab', 'Refused: no other tab is open in this workspace.');
    return sendToAll(ctx, from, others, request, now);
  }
  const target = resolveTab(ctx, from, request.to);
  if ('ok' in target) return target;
  const verdict = ctx.rules.check({ key: from.session.id, network: from.network }, { key: target.session.id, network: target.network }, now);
  if (!verdict.ok) return refused(verdict.code, verdict.text);
  ctx.rules.recordSent(from.session.id, now);
  return done(await deliver(ctx, from, target, request, verdict.hop, now));
}

async function sendToAll(ctx: MessagingContext, from: Tab, others: readonly Tab[], request: SendRequest, now: number): Promise<Answer> {
  const verdict: Verdict = ctx.rules.checkSender(from.session.id, now);
  if (!verdict.ok) return refused(verdict.code, verdict.text);
  const allowed = others.map((to) => networkAllows({ key: from.session.id, network: from.network }, { key: to.session.id, network: to.network }));
  const reached = allowed.filter(Boolean).length;
  // docs/modules.md pace: a message to every tab counts once, and only when it reached one (counted before
  // the deliveries are stored, so a concurrent send sees it).
  if (reached > 0) ctx.rules.recordSent(from.session.id, now);
  const sent: Outcome[] = [];
  for (const [i, to] of others.entries()) {
    const base = { tab: String(to.tab), title: titleOf(to) };
    sent.push(allowed[i] ? { ...base, ok: true, text: await deliver(ctx, from, to, request, verdict.hop, now) } : { ...base, ok: false, text: NETWORK_REFUSAL.text });
  }
  const lines = sent.map((o) => `- ${nameOf(o)}: ${o.text}`).join('\n');
  if (reached === 0) return { ...refused('network_rule', `Refused at every tab:\n${lines}`), sent };
  return done(`Sent to ${reached} of ${sent.length} tabs:\n${lines}`, { sent });
}

/** A tab named by its number or its title, never the sender itself. */
function resolveTab(ctx: MessagingContext, from: Tab, name: string): Tab | Answer {
  // The list of open tabs goes only into a refusal: a workspace may have thousands.
  const open = (): string => {
    const others = otherTabs(ctx, from);
    return others.length > 0 ? `Open tabs: ${others.map(tabName).join(', ')}.` : 'No other tab is open.';
  };
  if (/^[0-9]+$/.test(name)) {
    const n = Number(name);
    if (n === from.tab) return refused('invalid_request', `Refused: tab ${n} is you. ${open()}`);
    return ctx.tabs.numberedIn(from.session.workspace.id, n) ?? refused('unknown_tab', `Refused: no tab ${name} is open in this workspace. ${open()}`);
  }
  const titled = otherTabs(ctx, from).filter((t) => titleOf(t) === name);
  if (titled.length === 1) return titled[0]!;
  if (titled.length > 1) return refused('unknown_tab', `Refused: ${titled.length} tabs are titled "${name}"; name one by its number. ${open()}`);
  if (titleOf(from) === name) return refused('invalid_request', `Refused: "${name}" is you. ${open()}`);
  return refused('unknown_tab', `Refused: no tab "${name}" is open in this workspace. ${open()}`);
}

function otherTabs(ctx: MessagingContext, from: Tab): Tab[] {
  return ctx.tabs.inWorkspace(from.session.workspace.id).filter((t) => t !== from);
}

/** Puts the message in the receiver's inbox, offers it at once when it can, and says what became of it. */
async function deliver(ctx: MessagingContext, from: Tab, to: Tab, request: SendRequest, hop: number, now: number): Promise<string> {
  const id = ctx.newId();
  await ctx.inbox.add({
    id,
    toSessionId: to.session.id,
    fromSessionId: from.session.id,
    fromTab: from.tab,
    fromLabel: labelOf(from),
    kind: request.kind,
    text: request.text,
    hop,
    sentAt: now,
  });
  const name = tabName(to);
  if (to.delivery === 'inbox') {
    return `Left in ${name}'s inbox; it reads it when it asks (${await ctx.inbox.count(to.session.id)} waiting).`;
  }
  if ((await offerNext(ctx, to, now))?.id === id) return `Delivered: ${name} gets it as its next prompt now.`;
  const waiting = await ctx.inbox.count(to.session.id);
  if (to.trouble !== null) return `Waiting in ${name}'s inbox (${waiting} waiting): ${to.trouble}.`;
  return `Waiting: ${name} is working; it gets the message as a prompt once it stops (${waiting} waiting).`;
}

/** The prompt a sender is running, so its outgoing message sits in that turn of its transcript. */
function runningPrompt(tab: Tab): { promptId?: string } {
  const promptId = tab.session.runningPromptId();
  return promptId !== undefined ? { promptId } : {};
}

/** docs/modules.md MOST_TEXT counts characters, not UTF-16 units. */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
