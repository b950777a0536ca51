/**
 * The bounds http/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

/** docs/client-api.md §6.1: qwen refuses a prompt with more non-text (image, audio, resource) blocks than this. */
export const MAX_PROMPT_MEDIA_BLOCKS = 256;
/** docs/client-api.md §1: JSON bodies above this size are refused with 413. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/**
 * docs/client-api.md §6.1 `--rate-limit`: callers (client ids or addresses) tracked per tier at once. A flood of
 * distinct callers cannot grow memory past this; the oldest window makes room for a new caller.
 */
export const MAX_RATE_LIMIT_KEYS = 10_000;
/** docs/client-api.md §7.3: a heartbeat comment this often keeps proxies from closing idle streams. */
export const SSE_HEARTBEAT_MS = 15_000;
/**
 * docs/client-api.md §7.5, §7.7: once a stream's subscription has ended (evicted, session closed) it gets this long to
 * flush its last frames; a client that still does not read is then disconnected, so a dead peer that has
 * already left the bus (and its subscriber count) cannot keep a socket and its buffers forever.
 */
export const SSE_END_GRACE_MS = 10_000;
/** docs/client-api.md §2.6: client ids are 1-128 chars of this alphabet. */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
