/**
 * The bounds events/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

/** docs/client-api.md §7.1: `maxQueued` default and range. */
export const DEFAULT_MAX_QUEUED = 256;
export const MIN_MAX_QUEUED = 16;
export const MAX_MAX_QUEUED = 2048;
/** docs/client-api.md §7.5: a subscriber's live backlog may hold at most this many serialized bytes. */
export const MAX_QUEUED_BYTES = 2 * 1024 * 1024;
/** docs/client-api.md §7.4: replay sends at most this many serialized bytes per subscription. */
export const MAX_REPLAY_BYTES = 8 * 1024 * 1024;
/** docs/client-api.md §7.1: SSE subscribers per session. */
export const MAX_SUBSCRIBERS_PER_SESSION = 64;
/** docs/client-api.md §7.5: a subscriber is warned once its live backlog reaches this share of either cap… */
export const SLOW_CLIENT_WARN_RATIO = 0.75;
/** …and warned again only after both backlogs have drained to this share (hysteresis, no warning storms). */
export const SLOW_CLIENT_REARM_RATIO = 0.375;
