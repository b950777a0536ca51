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
}

/** A fenced write refused: this node no longer owns the session; a client retries and lands on the owner. */
export class LeaseLostError extends BerthError {
  override name = 'LeaseLostError';
  constructor(readonly sessionId: string) {
    super('session_on_other_node', `This node no longer holds the lease of session ${sessionId}`, { sessionId });
  }
}
