import { BerthError } from '../../protocol/errors/index.js';

/**
 * The session a write is made for, in cluster mode (docs/cluster-leases.md): the write
 * lands only while that session's lease still has this node and this token.
 */
export interface WriteFence {
  readonly sessionId: string;
  readonly nodeId: string;
  /** The token this node holds now; undefined once it knows the lease is gone. */
  token(): number | undefined;
  /** The database refused a write: another node has taken the session. */
  refused(): void;
  /**
   * A new session's lease not taken yet: its lease time, and its first write takes the lease
   * in the same transaction (docs/cluster-leases.md, Fencing); undefined otherwise.
   */
  acquiring?(): number | undefined;
  /** That first write committed: the lease is this node's at `token`. */
  acquired?(token: number): void;
}

/** A fenced write refused: this node no longer owns the session; a client retries and lands on the owner. */
export class LeaseLostError extends BerthError {
  override name = 'LeaseLostError';
  constructor(readonly sessionId: string) {
    super('session_on_other_node', `This node no longer holds the lease of session ${sessionId}`, { sessionId });
  }
}

/**
 * What a fenced unit opens with: the token it checks, or the lease time of a new session's lease
 * it takes. Known lost already (neither): refused without a round trip.
 */
export function leaseOf(fence: WriteFence | undefined): { token: number | undefined; leaseMs: number | undefined } {
  const token = fence?.token();
  const leaseMs = token === undefined ? fence?.acquiring?.() : undefined;
  if (fence && token === undefined && leaseMs === undefined) throw new LeaseLostError(fence.sessionId);
  return { token, leaseMs };
}

/** A new session's lease refused: another node holds a valid lease on its id. */
export function idTaken(sessionId: string): BerthError {
  return new BerthError('session_id_conflict', `Session "${sessionId}" already exists.`, { sessionId, conflict: 'live' });
}
