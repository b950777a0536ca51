/**
 * The outgoing-call journal of B's gateway (migration 5): the host's own
 * interface, which `store/` implements.
 */

/** Where an outgoing gateway call stands (migration 5). */
export type GatewayCallState = 'sent' | 'answered' | 'abandoned';

/** One call B sent (or is about to send) to a workspace owner over a channel. */
export interface GatewayCallRecord {
  readonly id: string;
  readonly workspaceId: string;
  readonly sessionId: string;
  readonly tool: string;
  /** The `args` JSON text exactly as framed. */
  readonly args: string;
  /** The channel token the call went out under; it is re-sent only to channels of that token. */
  readonly tokenId: string;
  readonly state: GatewayCallState;
  /** The `result` JSON text A answered with; null until answered. */
  readonly result: string | null;
  readonly sends: number;
  readonly sentAt: number;
  readonly settledAt: number | null;
}

export type GatewayCallStart = Pick<GatewayCallRecord, 'id' | 'workspaceId' | 'sessionId' | 'tool' | 'args' | 'tokenId' | 'sentAt'>;

/** A's result for one call, and when it came. */
export interface GatewayCallAnswer {
  readonly id: string;
  readonly result: string;
  readonly at: number;
}

/** Where outgoing calls are journalled. */
export interface GatewayCallRepository {
  /** Writes a `sent` row; throws when the id exists (ids are fresh per call). */
  insert(start: GatewayCallStart): Promise<void>;
  /**
   * Writes the `sent` rows of `starts`, then records `answers` (which may close those very rows),
   * in one write, each as `insert` and `answer` would. An id of `starts` that exists fails the whole
   * write: nothing of it is written.
   */
  writeRows(starts: readonly GatewayCallStart[], answers: readonly GatewayCallAnswer[]): Promise<void>;
  /** Counts one more frame sent for a call still `sent`. */
  resent(id: string): Promise<void>;
  /**
   * Another node of a cluster sends a call still `sent` from now on (docs/cluster-bus.md, gateway
   * channels): the row moves to this node only while it still names `fromNode`, so two nodes never
   * both carry it, and `fromNode`'s restart no longer abandons it. False when it moved or settled.
   */
  adopt(id: string, fromNode: string): Promise<boolean>;
  /**
   * Records A's result. True when the call was `sent` and is now `answered`;
   * false for a duplicate (already answered) or for an abandoned call, whose
   * result is kept for audit but reaches nobody.
   */
  answer(id: string, result: string, at: number): Promise<boolean>;
  /** Marks a call nobody waits for any more; false when it had already settled. */
  abandon(id: string, at: number): Promise<boolean>;
  find(id: string): Promise<GatewayCallRecord | undefined>;
  /** Abandons every call still `sent` (B restarted: the turns that made them are gone). Returns how many. */
  abandonAllSent(at: number): Promise<number>;
  /** Deletes settled rows older than `time`. */
  pruneSettledBefore(time: number): Promise<number>;
}
