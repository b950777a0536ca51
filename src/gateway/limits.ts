/**
 * The bounds gateway/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

/** B pings each channel this often and closes one that missed a pong, so a dead peer cannot hold in-flight calls. */
export const GATEWAY_PING_INTERVAL_MS = 15_000;
/** The owner drops a channel that heard nothing (not even a ping) for this long and dials again. */
export const GATEWAY_IDLE_TIMEOUT_MS = 3 * GATEWAY_PING_INTERVAL_MS;
/** The owner's first reconnect waits about this long; each failure doubles it (with jitter)… */
export const GATEWAY_RECONNECT_BASE_MS = 250;
/** …up to this ceiling, so an owner whose host is down for hours still retries within seconds of its return. */
export const GATEWAY_RECONNECT_MAX_MS = 15_000;
/** The owner gives up one WebSocket handshake after this long and backs off. */
export const GATEWAY_HANDSHAKE_TIMEOUT_MS = 10_000;
/** On shutdown the owner waits this long for calls already running to record their results. */
export const GATEWAY_SHUTDOWN_GRACE_MS = 10_000;
/** Settled rows of B's outgoing-call journal are kept this long (for audit), then pruned at start-up. */
export const GATEWAY_JOURNAL_RETENTION_MS = 7 * 24 * 3600 * 1000;
/**
 * B writes the `sent` and `answered` rows of its journal together, at most this long after the
 * first of them came: one commit for all the calls sent and answered meanwhile, instead of one per
 * call on the call's path or competing with the next call's work. Nothing waits for these rows
 * (docs/gateway.md, Receipts); a re-send, `written()` and shutdown write them at once.
 */
export const GATEWAY_JOURNAL_ROWS_DELAY_MS = 25;
/** …and at once when this many are waiting, so one batch stays one short transaction. */
export const GATEWAY_JOURNAL_ROWS_MAX = 256;
