import { done } from './answer.js';
import type { MessagingContext } from './context.js';
import { harnessOf, nameOf, profileOf, titleOf, type Tab } from './tabs.js';
import type { Answer, Listed, You } from './types.js';

/**
 * docs/modules.md `list`: the asking tab itself (`you` — an agent learns which tab it
 * is only from this, never from what another agent tells it) and every other
 * open tab of its workspace, with what a sender needs: network, how it reads
 * messages, how many wait, and what stops them.
 */
export async function list(ctx: MessagingContext, asker: Tab): Promise<Answer> {
  const you: You = {
    tab: String(asker.tab),
    title: titleOf(asker),
    harness: harnessOf(asker),
    profile: profileOf(asker),
    workspace: asker.session.workspace.displayName,
  };
  const others = ctx.tabs.inWorkspace(asker.session.workspace.id).filter((t) => t !== asker);
  const here = await listedOf(ctx, others);
  // Cluster mode: the workspace's tabs on the other nodes, merged by number.
  const tabs: Listed[] = ctx.peers ? mergeByTab(asker, here, await ctx.peers.tabsOf(asker.session.workspace.id)) : here.map(listedOnly);
  const head = `You are ${nameOf(you)} in workspace ${you.workspace} (${you.harness}, ${you.profile}).`;
  if (tabs.length === 0) return done(`${head} No other tab is open.`, { you, tabs });
  const lines = tabs.map((t) => `- ${nameOf(t)}: ${t.harness}, ${t.profile}, ${describe(t)}`);
  return done(`${head} Other tabs:\n${lines.join('\n')}`, { you, tabs });
}

/** Tabs of this node as a list shows them, each with its session id (another node's list asks for it). */
export async function listedOf(ctx: MessagingContext, tabs: readonly Tab[]): Promise<Array<Listed & { readonly sessionId: string }>> {
  const waiting = await Promise.all(tabs.map((t) => ctx.inbox.count(t.session.id)));
  return tabs.map((t, i) => ({
    sessionId: t.session.id,
    tab: String(t.tab),
    title: titleOf(t),
    harness: harnessOf(t),
    profile: profileOf(t),
    network: t.network,
    inbox: t.delivery === 'inbox',
    waiting: waiting[i]!,
    trouble: t.trouble,
  }));
}

/** Two lists of tabs as one, by number; a tab both name (a session just moving between nodes) once, as this node sees it. */
function mergeByTab(asker: Tab, here: readonly Listed[], there: readonly Listed[]): Listed[] {
  const seen = new Set([String(asker.tab), ...here.map((t) => t.tab)]);
  return [...here, ...there.filter((t) => !seen.has(t.tab))].sort((a, b) => Number(a.tab) - Number(b.tab)).map(listedOnly);
}

/** A listed tab without what only nodes exchange (session and node ids): the answer's shape is docs/modules.md's. */
function listedOnly(t: Listed): Listed {
  return { tab: t.tab, title: t.title, harness: t.harness, profile: t.profile, network: t.network, inbox: t.inbox, waiting: t.waiting, trouble: t.trouble };
}

function describe(t: Listed): string {
  const parts = [t.network ? 'network' : 'no network', t.inbox ? 'reads its inbox' : 'gets messages as prompts'];
  if (t.waiting > 0) parts.push(`${t.waiting} waiting`);
  if (t.trouble !== null) parts.push(`trouble: ${t.trouble}`);
  return parts.join(', ');
}

/** A tab that is not open cannot see or reach the others. */
export function notOpen(): Answer {
  return {
    ok: false,
    code: 'session_not_found',
    text: 'Refused: your session is not open in Berth right now; only inbox and peek answer until it is opened again.',
  };
}
