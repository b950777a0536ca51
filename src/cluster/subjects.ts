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

/**
 * Remote workspace ids may hold dots (`--remote-workspace` takes `[A-Za-z0-9._-]`), which would split a
 * subject: they travel hex-encoded, which is always one token and never collides.
 */
const workspaceToken = (workspaceId: string): string => Buffer.from(workspaceId, 'utf8').toString('hex');
/** Answered, with its node id, by every node that holds a gateway channel of the workspace now. */
export const gatewayWhereSubject = (workspaceId: string): string => `berth.gateway.${workspaceToken(workspaceId)}.where`;
/** Said by a node whose first channel of a workspace just opened (payload: the workspace id): waiting calls look again. */
export const GATEWAY_UP_SUBJECT = 'berth.gateway.up';
/** Gateway calls relayed to the node that holds the workspace's channel (request/reply). */
export const gatewaySubject = (nodeId: string): string => `berth.node.${nodeId}.gateway`;
/** The catalogs of the applications connected to a node, announced to every other node (payload: one application's publication). */
export const APPS_CATALOG_SUBJECT = 'berth.apps.catalog';
/** Said by a node that starts (payload: its id): every node announces its applications again. */
export const APPS_HELLO_SUBJECT = 'berth.apps.hello';
/** Application tool calls relayed to the node the application is connected to (request/reply). */
export const appsSubject = (nodeId: string): string => `berth.node.${nodeId}.apps`;
