import { BerthError } from '../protocol/errors/index.js';

/**
 * What a request for a session that another live node runs gets (docs/cluster-leases.md):
 * the one place that decides it, so forwarding to the owner can replace the refusal.
 */
export type RemoteSessionPolicy = (sessionId: string, ownerNodeId: string) => Promise<never>;

/** Until requests are forwarded: a retryable 503 naming the owner, for a load balancer or client to retry. */
export const refuseRemoteSession: RemoteSessionPolicy = async (sessionId, ownerNodeId) => {
  throw new BerthError('session_on_other_node', `Session ${sessionId} runs on node ${ownerNodeId}`, { sessionId, nodeId: ownerNodeId });
};
