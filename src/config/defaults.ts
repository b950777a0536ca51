/**
 * Defaults and ceilings of the overridable bounds. Each one is read through `Config` (flags, env,
 * config file), never from here, so a daemon enforces the limit it advertises.
 */

/** docs/gateway.md `limits.channels`: gateway channels open at once, daemon-wide. */
export const MAX_CHANNELS = 20;
/** docs/gateway.md `limits.channelsPerToken`: one owner cannot take every channel slot. */
export const MAX_CHANNELS_PER_TOKEN = 4;
/** docs/gateway.md `limits.inFlightCallsPerWorkspace`: further calls wait in order. */
export const MAX_INFLIGHT_CALLS_PER_WORKSPACE = 4;
/**
 * The longest delay a Node timer waits: past 2^31 - 1 ms it fires after 1 ms instead (TimeoutOverflowWarning),
 * so every configured duration that becomes a timer (deadlines, permission timeouts, the reap interval) stops here.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** docs/client-api.md §6.1: prompts admitted but not settled, per session (running + queued). */
export const DEFAULT_MAX_PENDING_PROMPTS = 5;
/** docs/client-api.md §7.4: events kept per session for replay. */
export const DEFAULT_EVENT_RING_SIZE = 8000;
/** docs/client-api.md §7.4: soft maximum for `--event-ring-size`. */
export const MAX_EVENT_RING_SIZE = 1_000_000;
/** Tool-calling rounds the built-in agent may take in one turn before it stops. */
export const DEFAULT_MAX_TURN_ITERATIONS = 50;
/** docs/client-api.md §5.10: idle sessions are reaped after this long by default (0 disables). */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/** How long a remote workspace's tool call waits for a channel before failing. */
export const DEFAULT_CHANNEL_WAIT_MS = 30_000;
