import type { Logger } from '../log.js';
import type { PeerTab, TabPeers, TabsHere } from '../messaging/peers.js';
import type { Listed } from '../messaging/types.js';
import { TAB_PEER_TIMEOUT_MS } from './limits.js';
import { tabsSubject } from './subjects.js';
import type { BusSubscription, BusTransport } from './transport.js';

/** What one node asks another about its module tabs. */
type TabsQuestion = { readonly op: 'list'; readonly workspaceId: string } | { readonly op: 'offer'; readonly sessionId: string; readonly messageId: string };

type Here = Listed & { readonly sessionId: string };

/**
 * The module protocol across nodes (docs/cluster-bus.md, Module tabs): sockets stay per
 * node, but `list` and `send` see every tab of the workspace. The lease table says which
 * nodes run a tab of it; each is asked over the bus for its own. A message goes into the
 * shared inbox, and the node running its receiver is told, so that node offers it as a
 * local send would. A node that does not answer in time leaves only its tabs out.
 */
export class BusTabPeers implements TabPeers {
  constructor(
    private readonly deps: {
      readonly transport: BusTransport;
      /** The nodes but this one running a tab of the workspace. */
      readonly nodesOf: (workspaceId: string) => Promise<string[]>;
      readonly log: Logger;
      readonly timeoutMs?: number;
    },
  ) {}

  async tabsOf(workspaceId: string): Promise<PeerTab[]> {
    const nodes = await this.deps.nodesOf(workspaceId);
    const answers = await Promise.all(nodes.map(async (nodeId) => (await this.ask<{ tabs?: Here[] }>(nodeId, { op: 'list', workspaceId }))?.tabs ?? []));
    return answers.flatMap((tabs, i) => tabs.filter(isListed).map((t) => ({ ...t, nodeId: nodes[i]! })));
  }

  async offer(nodeId: string, sessionId: string, messageId: string): Promise<string | undefined> {
    const answer = await this.ask<{ text?: unknown }>(nodeId, { op: 'offer', sessionId, messageId });
    return typeof answer?.text === 'string' ? answer.text : undefined;
  }

  private async ask<T>(nodeId: string, question: TabsQuestion): Promise<T | undefined> {
    try {
      const data = await this.deps.transport.request(tabsSubject(nodeId), JSON.stringify(question), this.deps.timeoutMs ?? TAB_PEER_TIMEOUT_MS);
      const answer = JSON.parse(Buffer.from(data).toString('utf8')) as unknown;
      return answer !== null && typeof answer === 'object' ? (answer as T) : undefined;
    } catch (err) {
      this.deps.log.debug({ err, nodeId, op: question.op }, 'another node did not answer about its module tabs');
      return undefined;
    }
  }
}

/** Answers the other nodes' questions about this node's tabs. */
export function serveTabs(transport: BusTransport, nodeId: string, here: TabsHere, log: Logger): BusSubscription {
  return transport.serve(tabsSubject(nodeId), async (data) => {
    try {
      const q = JSON.parse(Buffer.from(data).toString('utf8')) as Partial<Record<string, unknown>> | null;
      if (q?.op === 'list' && typeof q.workspaceId === 'string') return JSON.stringify({ tabs: await here.listedHere(q.workspaceId) });
      if (q?.op === 'offer' && typeof q.sessionId === 'string' && typeof q.messageId === 'string') {
        return JSON.stringify({ text: (await here.offerHere(q.sessionId, q.messageId)) ?? null });
      }
      return JSON.stringify({});
    } catch (err) {
      log.warn({ err }, 'answering another node about module tabs failed');
      return JSON.stringify({});
    }
  });
}

/** A listed tab from another node, whole: one with a missing or mistyped field is left out. */
function isListed(t: unknown): t is Here {
  const v = t as Partial<Record<keyof Here, unknown>> | null;
  return (
    v !== null && typeof v === 'object' && typeof v.sessionId === 'string' && typeof v.tab === 'string' && /^[0-9]+$/.test(v.tab) &&
    typeof v.title === 'string' && typeof v.harness === 'string' && typeof v.profile === 'string' && typeof v.network === 'boolean' &&
    typeof v.inbox === 'boolean' && typeof v.waiting === 'number' && (v.trouble === null || typeof v.trouble === 'string')
  );
}
