/**
 * Where a live session runs when several daemons share one store (docs/cluster.md).
 * A session runs on exactly one node at a time: the node holding its lease.
 * A single daemon has no placement at all; every session is local.
 */
export type SessionLocation =
  | { readonly kind: 'local' }
  /** Another live node holds the session's lease: requests for it go there. */
  | { readonly kind: 'remote'; readonly nodeId: string }
  /** Nobody holds a valid lease (never opened, closed, or its owner died): this node may take it. */
  | { readonly kind: 'free' };

export interface SessionPlacement {
  /** This daemon's node id (`berth serve --node-id`). */
  readonly nodeId: string;
  /** Where `sessionId` runs now, read from the lease table. */
  locate(sessionId: string): Promise<SessionLocation>;
}
