/**
 * The bounds modules/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

/** A module peer must send its whole line within this time, so a silent peer cannot hold a socket. */
export const MODULE_READ_TIMEOUT_MS = 5_000;
/**
 * Connections one workspace socket holds at once; more are closed unanswered. Each asks one
 * question and is cut after MODULE_READ_TIMEOUT_MS, so this bounds what silent peers can pin.
 */
export const MODULE_MAX_CONNECTIONS = 64;
/**
 * A Unix socket path must fit `sun_path` (108 bytes on Linux, 104 on macOS, NUL included); a
 * longer home folder gets its sockets in a short folder under the OS temp dir instead.
 */
export const MODULE_SOCKET_PATH_MAX_BYTES = 103;
/** `berth msg` and other clients give up on an answer after this long (the daemon answers in milliseconds). */
export const MODULE_CLIENT_TIMEOUT_MS = 10_000;
