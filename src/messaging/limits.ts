/**
 * The bounds messaging/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

/** docs/modules.md original: a chain of messages is cut after this many hops… */
export const MODULE_MAX_HOPS = 6;
/** …within this window. */
export const MODULE_HOP_WINDOW_MS = 10 * 60 * 1000;
/** docs/modules.md original: a tab may send at most this many messages… */
export const MODULE_PACE_MAX = 5;
/** …per this window. */
export const MODULE_PACE_WINDOW_MS = 60 * 1000;
