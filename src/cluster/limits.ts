/**
 * The bounds of the cluster bus (docs/cluster-bus.md), each with its reason.
 */

/** How long a forwarded request waits for the owner's answer: prompts answer 202 once admitted, so this bounds a stuck owner, not a turn. */
export const FORWARD_TIMEOUT_MS = 30_000;
/** How long a remote event stream waits for the owner's replay before answering 503 `owner_unreachable`. */
export const REPLAY_TIMEOUT_MS = 10_000;
/** Room kept in a replay answer for its own fields around the replayed frames. */
export const REPLAY_ANSWER_HEADROOM = 4096;
/**
 * How often a node tells an owner which of its sessions it still streams: well under the
 * shortest idle timeout anyone sets, so a session watched only from other nodes is never reaped as idle.
 */
export const FOLLOWED_NOTICE_MS = 30_000;
/**
 * How long a module `list` or `send` waits for another node's tabs or its word on a delivery:
 * an agent is waiting on its socket, and a node that is gone leaves only its tabs out (a
 * message stays in the shared inbox either way).
 */
export const TAB_PEER_TIMEOUT_MS = 3_000;
