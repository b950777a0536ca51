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
/** How long a node waits for a holder of a gateway channel to say so: a live holder answers at once, so this bounds a stuck bus. */
export const GATEWAY_WHERE_TIMEOUT_MS = 5_000;
/**
 * How often a relayed gateway call checks that the node holding the channel still listens: a killed node sends
 * nothing, and its subscriptions vanish only with its connection, so a call in flight there learns it this way.
 */
export const GATEWAY_PROBE_MS = 2_000;
/** The bus deadline of one relayed gateway call: the hub itself sets none on the owner's answer (docs/gateway.md), the probes above catch a dead holder. */
export const GATEWAY_RELAY_TIMEOUT_MS = 24 * 3600 * 1000;
