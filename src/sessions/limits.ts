/**
 * The bounds sessions/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

/** docs/client-api.md §5.6: a display name is cut to this many UTF-16 code units before it is checked. */
export const MAX_DISPLAY_NAME_UNITS = 256;
/** A session keeps at most this many bound pull requests (docs/client-api.md §5.6); the oldest drop out first. */
export const MAX_SESSION_PRS = 20;
/** docs/client-api.md §9.1: pending permission requests per session; excess resolve as cancelled. */
export const MAX_PENDING_PERMISSIONS = 64;
/** docs/client-api.md §9.3: resolved request ids remembered for `permission_already_resolved`. */
export const RESOLVED_PERMISSIONS_REMEMBERED = 512;
/**
 * docs/client-api.md §2.6: client ids registered on one session at once. Every attach without a registered id mints one,
 * so a shared session attached again and again would otherwise hold every id it ever issued; past this the
 * least recently used id is dropped (its holder's next call gets `invalid_client_id` and the SDK re-attaches).
 */
export const MAX_CLIENTS_PER_SESSION = 1024;
/** docs/client-api.md §5.3: a load replays at most this many of the newest records when the client names no `historyPageSize`… */
export const DEFAULT_COMPACTED_REPLAY_RECORDS = 500;
/** …and at most this many serialized bytes (qwen's `--compacted-replay-max-bytes` default); older records are paged. */
export const MAX_COMPACTED_REPLAY_BYTES = 4 * 1024 * 1024;
/** docs/client-api.md §5.3: restore budget advertised as `limits.sessionRestoreTimeoutMs`. */
export const SESSION_RESTORE_TIMEOUT_MS = 60_000;
/**
 * docs/client-api.md §5.11: `GET /sessions` answers at most this many sessions a page when the client names no
 * `limit`, and never more than the maximum: one page of 50,000 sessions was 11 MB built in one 1.4 s stall (issue 16).
 */
export const DEFAULT_SESSION_LIST_PAGE = 500;
export const MAX_SESSION_LIST_PAGE = 1000;
/**
 * Messages typed while a turn runs (`POST /session/{id}/mid-turn-message`) wait at most this many per session, as in
 * qwen serve: each becomes a user message of the running turn, so an unbounded queue would be an unbounded prompt.
 */
export const MAX_MID_TURN_MESSAGES = 20;
/** Ids of mid-turn messages handed off, removed or promoted, kept so a client retrying or reconciling finds them (qwen's ring size). */
export const MID_TURN_IDS_REMEMBERED = 200;
