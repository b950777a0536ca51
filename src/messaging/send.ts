import { MODULE_MOST_TEXT } from '../protocol/limits.js';
import { done, refused } from './answer.js';
import type { MessagingContext } from './context.js';
import { offerNext } from './delivery.js';
import { networkAllows, NETWORK_REFUSAL, type Verdict } from './rules.js';
import type { PeerTab } from './peers.js';
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
    const others = await otherReceivers(ctx, from);
    if (others.length === 0) return refused('unknown_tab', 'Refused: no other tab is open in this workspace.');
    return sendToAll(ctx, from, others, request, now);
  }
  const target = await resolveTab(ctx, from, request.to);
  if ('ok' in target) return target;
  const verdict = ctx.rules.check({ key: from.session.id, network: from.network }, { key: target.sessionId, network: target.network }, now);
  if (!verdict.ok) return refused(verdict.code, verdict.text);
  ctx.rules.recordSent(from.session.id, now);
  return done(await deliver(ctx, from, target, request, verdict.hop, now));
}

async function sendToAll(ctx: MessagingContext, from: Tab, others: readonly Receiver[], request: SendRequest, now: number): Promise<Answer> {
  const verdict: Verdict = ctx.rules.checkSender(from.session.id, now);
  if (!verdict.ok) return refused(verdict.code, verdict.text);
  const allowed = others.map((to) => networkAllows({ key: from.session.id, network: from.network }, { key: to.sessionId, network: to.network }));
  const reached = allowed.filter(Boolean).length;
  // docs/modules.md pace: a message to every tab counts once, and only when it reached one (counted before
  // the deliveries are stored, so a concurrent send sees it).
  if (reached > 0) ctx.rules.recordSent(from.session.id, now);
  const sent: Outcome[] = [];
  for (const [i, to] of others.entries()) {
    const base = { tab: String(to.tab), title: to.title };
    sent.push(allowed[i] ? { ...base, ok: true, text: await deliver(ctx, from, to, request, verdict.hop, now) } : { ...base, ok: false, text: NETWORK_REFUSAL.text });
  }
  const lines = sent.map((o) => `- ${nameOf(o)}: ${o.text}`).join('\n');
  if (reached === 0) return { ...refused('network_rule', `Refused at every tab:\n${lines}`), sent };
  return done(`Sent to ${reached} of ${sent.length} tabs:\n${lines}`, { sent });
}

/** A tab named by its number or its title, never the sender itself. */
async function resolveTab(ctx: MessagingContext, from: Tab, name: string): Promise<Receiver | Answer> {
  // The list of open tabs goes only into a refusal: a workspace may have thousands.
  const open = async (): Promise<string> => {
    const others = await otherReceivers(ctx, from);
    return others.length > 0 ? `Open tabs: ${others.map(nameOf).join(', ')}.` : 'No other tab is open.';
  };
  if (/^[0-9]+$/.test(name)) {
    const n = Number(name);
    if (n === from.tab) return refused('invalid_request', `Refused: tab ${n} is you. ${await open()}`);
    const here = ctx.tabs.numberedIn(from.session.workspace.id, n);
    if (here) return receiverOf(here);
    // Only a number this node does not run asks the other nodes.
    const there = ctx.peers ? (await peerReceivers(ctx, from)).find((r) => r.tab === n) : undefined;
    return there ?? refused('unknown_tab', `Refused: no tab ${name} is open in this workspace. ${await open()}`);
  }
  const titled = (await otherReceivers(ctx, from)).filter((t) => t.title === name);
  if (titled.length === 1) return titled[0]!;
  if (titled.length > 1) return refused('unknown_tab', `Refused: ${titled.length} tabs are titled "${name}"; name one by its number. ${await open()}`);
  if (titleOf(from) === name) return refused('invalid_request', `Refused: "${name}" is you. ${await open()}`);
  return refused('unknown_tab', `Refused: no tab "${name}" is open in this workspace. ${await open()}`);
}

/** Every other open tab of the sender's workspace, this node's and, in cluster mode, the others', by number. */
async function otherReceivers(ctx: MessagingContext, from: Tab): Promise<Receiver[]> {
  const here = ctx.tabs.inWorkspace(from.session.workspace.id).filter((t) => t !== from).map(receiverOf);
  if (!ctx.peers) return here;
  const numbers = new Set(here.map((r) => r.tab));
  const there = (await peerReceivers(ctx, from)).filter((r) => !numbers.has(r.tab));
  return [...here, ...there].sort((a, b) => a.tab - b.tab);
}

async function peerReceivers(ctx: MessagingContext, from: Tab): Promise<Receiver[]> {
  const tabs = await ctx.peers!.tabsOf(from.session.workspace.id);
  return tabs.filter((t) => t.sessionId !== from.session.id).map(peerReceiverOf);
}

/** Puts the message in the receiver's inbox, offers it at once when it can, and says what became of it. */
async function deliver(ctx: MessagingContext, from: Tab, to: Receiver, request: SendRequest, hop: number, now: number): Promise<string> {
  const id = ctx.newId();
  await ctx.inbox.add({
    id,
    toSessionId: to.sessionId,
    fromSessionId: from.session.id,
    fromTab: from.tab,
    fromLabel: labelOf(from),
    kind: request.kind,
    text: request.text,
    hop,
    sentAt: now,
  });
  if (to.local) return arrived(ctx, to.local, id, now);
  // The inbox is shared; the node running the receiver wakes it, and says what it did.
  const told = await ctx.peers?.offer(to.nodeId!, to.sessionId, id);
  return told ?? `Waiting in ${nameOf(to)}'s inbox (${await ctx.inbox.count(to.sessionId)} waiting): its node did not answer; it gets the message when its session next opens.`;
}

/** A message stored for a tab this node runs: offered as its next prompt when it takes prompts, and what became of it. */
export async function arrived(ctx: MessagingContext, to: Tab, id: string, now: number): Promise<string> {
  const name = tabName(to);
  if (to.delivery === 'inbox') {
    return `Left in ${name}'s inbox; it reads it when it asks (${await ctx.inbox.count(to.session.id)} waiting).`;
  }
  if ((await offerNext(ctx, to, now))?.id === id) return `Delivered: ${name} gets it as its next prompt now.`;
  const waiting = await ctx.inbox.count(to.session.id);
  if (to.trouble !== null) return `Waiting in ${name}'s inbox (${waiting} waiting): ${to.trouble}.`;
  return `Waiting: ${name} is working; it gets the message as a prompt once it stops (${waiting} waiting).`;
}

/** A receiver of a send: a tab this node runs (`local`), or one another node runs (`nodeId`). */
interface Receiver {
  readonly sessionId: string;
  readonly tab: number;
  readonly title: string;
  readonly network: boolean;
  readonly local?: Tab;
  readonly nodeId?: string;
}

function receiverOf(t: Tab): Receiver {
  return { sessionId: t.session.id, tab: t.tab, title: titleOf(t), network: t.network, local: t };
}

function peerReceiverOf(t: PeerTab): Receiver {
  return { sessionId: t.sessionId, tab: Number(t.tab), title: t.title, network: t.network, nodeId: t.nodeId };
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
