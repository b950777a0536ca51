/**
 * The bounds tools/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

/**
 * Completed receipts are kept this long, then pruned at start-up: a call id
 * repeated within it gets the stored result. Receipts left `executing` (uncertain)
 * are never pruned.
 */
export const RECEIPT_RETENTION_MS = 30 * 24 * 3600 * 1000;
/** docs/gateway.md `workspace_read.limit` maximum: 128 KiB per gateway read. */
export const MAX_GATEWAY_READ_BYTES = 131_072;
/** docs/gateway.md `workspace_write.content` maximum length. */
export const MAX_WRITE_CHARS = 1_048_576;
/** Output kept per command; older output is dropped and reported, so a chatty command cannot grow memory. */
export const MAX_COMMAND_OUTPUT_BYTES = 1024 * 1024;
/** Finished commands stay pollable this long, then are reaped. */
export const COMMAND_RETENTION_MS = 10 * 60 * 1000;
/** At most this many commands per session are remembered at once (running or finished). */
export const MAX_COMMANDS_PER_SESSION = 64;
/** docs/gateway.md `workspace_exec.timeoutMs` is 1000–600000; a command given none is killed after this. */
export const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
/**
 * `workspace_exec.waitMs` (docs/workspace-tools.md): how long a call may wait for its command to
 * finish so the output comes back in the same result. The built-in agent waits this long unless
 * the model says otherwise (most commands finish well inside it, and each poll costs a model
 * round trip); the gateway owner waits 0 unless the host asks, the seed's behaviour.
 */
export const DEFAULT_EXEC_WAIT_MS = 10_000;
/** The longest wait a call may ask for; longer work is polled, so one call never holds a turn for minutes. */
export const MAX_EXEC_WAIT_MS = 60_000;
/** A stopped or timed-out command group gets SIGTERM, then SIGKILL after this grace, so cleanup handlers may run but cannot hang. */
export const EXEC_KILL_GRACE_MS = 2_000;
/** One `workspace_poll` returns at most this much output; even fully escaped as JSON it stays well inside a 2 MiB frame. */
export const MAX_POLL_OUTPUT_BYTES = 256 * 1024;
/** `workspace_info` quotes each AGENTS.md / CLAUDE.md / QWEN.md up to this size; the rest is read with `workspace_read`. */
export const MAX_INSTRUCTIONS_BYTES = 64 * 1024;
/** Workspace tools hash whole files for their revision; a larger file is refused so one call cannot stream gigabytes. */
export const MAX_HASHED_FILE_BYTES = 256 * 1024 * 1024;
/** `workspace_patch` holds the whole file in memory while it edits; larger files are refused. */
export const MAX_PATCH_FILE_BYTES = 16 * 1024 * 1024;
/** `workspace_image` decodes at most this many bytes of image file. */
export const MAX_IMAGE_FILE_BYTES = 64 * 1024 * 1024;
/** Room left in a gateway frame for the JSON around a base64 image (ids, metadata, escaping). */
export const IMAGE_FRAME_HEADROOM_BYTES = 64 * 1024;
/** `workspace_image` re-encodes smaller at most this many times before it gives up with `image_too_large`. */
export const MAX_IMAGE_SCALE_ATTEMPTS = 8;
/** `workspace_document` parses PDFs up to this size; parsing is CPU work in the daemon's own thread. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** Extracted text of one PDF page is cut (and reported `truncated`) past this many UTF-8 bytes. */
export const MAX_PAGE_TEXT_BYTES = 256 * 1024;
/**
 * File checkpoints (docs/client-api.md §5.13): the prior contents one session keeps so a rewind
 * can restore them, counted once per distinct content. Past it the oldest contents are given
 * up, and a rewind that would need one is refused (`checkpoint_evicted`) rather than restoring
 * less than it says.
 */
export const CHECKPOINT_BUDGET_BYTES = 64 * 1024 * 1024;
