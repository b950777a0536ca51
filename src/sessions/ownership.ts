/**
 * Who may run a session, when several daemons share one store
 * (docs/cluster-leases.md). A single daemon has none: every session is its
 * own. In cluster mode the node's leases answer (src/cluster/node.ts).
 */
export interface SessionOwnership {
  /**
   * Before a session that is not live here is made live (a route touched it, a
   * load or resume): make this node its owner, settling what a dead owner left,
   * or throw (another node runs it, or this node is draining).
   */
  claim(sessionId: string): Promise<void>;
  /** Before a new session's row is written: it is this node's from the start. */
  claimNew(sessionId: string): Promise<void>;
  /** The session is no longer live here and its last writes are stored: its lease goes back. */
  released(sessionId: string): void;
  /** Of these sessions, the ones another node runs now; one look for a whole list page. */
  liveElsewhere(sessionIds: readonly string[]): Promise<Set<string>>;
}
