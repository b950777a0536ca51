/**
 * The NATS subjects of the cluster bus (docs/cluster-bus.md). Session and node ids
 * become one subject token each, so only ids without `.`, `*`, `>` or spaces may
 * route: session ids are UUIDs, node ids are checked where they are configured.
 */
const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

export function isSubjectToken(value: string): boolean {
  return TOKEN.test(value);
}

/** Every event of one session, published by the node that runs it. */
export const eventsSubject = (sessionId: string): string => `berth.session.${sessionId}.events`;
/** Replay requests for the sessions a node runs. */
export const replaySubject = (nodeId: string): string => `berth.node.${nodeId}.replay`;
/** Client API requests forwarded to the node that runs their session. */
export const httpSubject = (nodeId: string): string => `berth.node.${nodeId}.http`;
/** Said once by a node that stops: the streams following its sessions end. */
export const downSubject = (nodeId: string): string => `berth.node.${nodeId}.down`;
/** Session ids a node's followers still stream: the owner counts them as activity, as it counts its own subscribers. */
export const followedSubject = (nodeId: string): string => `berth.node.${nodeId}.followed`;
/** A node's module tabs, asked by the other nodes' `list` and `send` (request/reply). */
export const tabsSubject = (nodeId: string): string => `berth.node.${nodeId}.tabs`;
