import type { TabView } from './service.js';
import type { Listed } from './types.js';

/** A tab whose session another node of the cluster runs (docs/cluster-bus.md, Module tabs across nodes). */
export interface PeerTab extends Listed {
  readonly sessionId: string;
  /** The node running it, which wakes its agent when a message arrives. */
  readonly nodeId: string;
}

/**
 * The other nodes of a cluster as the module protocol sees them: their open tabs
 * of a workspace, and how to tell one that a message waits in a tab's inbox (the
 * inbox is in the shared store). A daemon alone has none, and asks nothing.
 */
export interface TabPeers {
  /** The open tabs of the workspace on the other nodes. */
  tabsOf(workspaceId: string): Promise<PeerTab[]>;
  /**
   * Tells `nodeId` that message `messageId` waits for its tab `sessionId`: it offers it as a
   * local send would. Its words on what became of the message, or undefined when the node
   * did not answer or no longer runs the session (the message waits for whoever opens it next).
   */
  offer(nodeId: string, sessionId: string, messageId: string): Promise<string | undefined>;
}

/** What this node answers the others: its own tabs of a workspace, and a message's offer to one of them. */
export interface TabsHere {
  listedHere(workspaceId: string): Promise<Array<Listed & { readonly sessionId: string }>>;
  offerHere(sessionId: string, messageId: string): Promise<string | undefined>;
}

/**
 * Other nodes' tabs of a workspace as its owner's panel shows them: each tab once, a tab this
 * node also runs (a session just moving between nodes) as this node sees it. The socket is
 * this node's: a tab is reached through whichever node the asker is on.
 */
export function peerViews(workspaceId: string, here: readonly TabView[], there: readonly PeerTab[], socket: string | null): TabView[] {
  const seen = new Set(here.map((v) => v.tab));
  return there
    .filter((t) => !seen.has(t.tab) && seen.add(t.tab))
    .map((t) => ({
      sessionId: t.sessionId,
      workspaceId,
      tab: t.tab,
      title: t.title,
      harness: t.harness,
      profile: t.profile,
      network: t.network,
      delivery: t.inbox ? 'inbox' : 'prompt',
      waiting: t.waiting,
      trouble: t.trouble,
      socket,
    }));
}
