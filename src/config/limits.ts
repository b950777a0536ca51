/**
 * Every bound the daemon enforces, named, with the reason it exists.
 * Defaults come from the seeds (cited); each is overridable through Config
 * where it makes sense, validated at start-up and advertised in
 * `/capabilities` `limits`.
 */

/** Seed 000 `limits.channels`: gateway channels open at once, daemon-wide. */
export const MAX_CHANNELS = 20;
/** Seed 000 `limits.channelsPerToken`: one owner cannot take every channel slot. */
export const MAX_CHANNELS_PER_TOKEN = 4;
/** Seed 000 `limits.inFlightCallsPerWorkspace`: further calls wait in order. */
export const MAX_INFLIGHT_CALLS_PER_WORKSPACE = 4;
/** Seed 000 `limits.frameBytes`: a larger WebSocket frame closes the channel with 1009. */
export const MAX_FRAME_BYTES = 2 * 1024 * 1024;
/** A launch intention (seed 000: pinned by the owner, sent with every call) is at most this many characters. */
export const MAX_INTENTION_CHARS = 1000;
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
/**
 * Completed receipts are kept this long, then pruned at start-up: a call id
 * repeated within it gets the stored result. Receipts left `executing` (uncertain)
 * are never pruned.
 */
export const RECEIPT_RETENTION_MS = 30 * 24 * 3600 * 1000;
/** Settled rows of B's outgoing-call journal are kept this long (for audit), then pruned at start-up. */
export const GATEWAY_JOURNAL_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** Seed 003: a batch runs 1 to 32 calls in order. */
export const MAX_BATCH_CALLS = 32;
/** Seed 003: `after.delayMilliseconds` accepts 0 through 2000. */
export const MAX_EVIDENCE_DELAY_MS = 2000;
/** Seed 003: payloads whose compact JSON reaches 32 KiB may travel gzip-base64 wrapped. */
export const COMPRESSION_THRESHOLD_BYTES = 32 * 1024;
/** Seed 003 original (peers-notes): at most 1000 tools in one catalog answer. */
export const MAX_CATALOG_TOOLS = 1000;
/** A decoded gzip wrapper may not inflate past this, so a tiny frame cannot become a memory bomb. */
export const MAX_DECOMPRESSED_BYTES = 16 * 1024 * 1024;
/** Seed 000 `workspace_tool.name` maxLength: tool names and ids are at most this long. */
export const MAX_TOOL_NAME_CHARS = 200;
/** A caller's call id (receipt key) is at most this long, so receipts stay small. */
export const MAX_CALL_ID_CHARS = 200;
/** A catalog `query`/`feature` text is at most this long; search terms beyond it only cost time. */
export const MAX_CATALOG_QUERY_CHARS = 1000;
/** Tool protocol: applications connected at once, daemon-wide, so sockets and catalogs stay bounded. */
export const MAX_APP_CONNECTIONS = 64;
/** Tool protocol: an application must answer a catalog query within this time, or the refresh is given up. */
export const APP_QUERY_TIMEOUT_MS = 15_000;
/** Tool protocol: a `tool.call`/`tool.batch` unanswered this long fails with `tool_timeout`, so a hung app cannot hold a turn forever. */
export const APP_CALL_TIMEOUT_MS = 5 * 60 * 1000;
/** Tool protocol: malformed frames one connection may send; past this it is closed (1008), since it is not speaking the protocol. */
export const MAX_APP_PROTOCOL_ERRORS = 64;
/** Tool protocol: definitions remembered per application by `definitionRevision` (across reconnects), twice one full catalog. */
export const MAX_CACHED_DEFINITIONS_PER_APP = 2 * MAX_CATALOG_TOOLS;
/** Tool protocol: the daemon pings each application this often and drops one that has not answered the previous ping (a half-open socket must not keep its tools "connected"). */
export const APP_PING_INTERVAL_MS = 30_000;
/** Tool protocol: a frame id (`id`, `replyTo`) or session id is at most this long. */
export const MAX_FRAME_ID_CHARS = 200;

/** Seed 004 `MOST_LINE`: the longest question line read, in bytes. */
export const MODULE_MOST_LINE = 256 * 1024;
/** Seed 004 `MOST_TEXT`: the most characters a message may have. */
export const MODULE_MOST_TEXT = 16_000;
/** A module peer must send its whole line within this time, so a silent peer cannot hold a socket. */
export const MODULE_READ_TIMEOUT_MS = 5_000;
/** Seed 004 original: a chain of messages is cut after this many hops… */
export const MODULE_MAX_HOPS = 6;
/** …within this window. */
export const MODULE_HOP_WINDOW_MS = 10 * 60 * 1000;
/** Seed 004 original: a tab may send at most this many messages… */
export const MODULE_PACE_MAX = 5;
/** …per this window. */
export const MODULE_PACE_WINDOW_MS = 60 * 1000;
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

/** A workspace path longer than this is refused before it touches the file system (Linux PATH_MAX). */
export const MAX_PATH_CHARS = 4096;

/**
 * A workspace path with one name longer than this many UTF-8 bytes (Linux
 * NAME_MAX) is refused like an overlong path: the file system would answer
 * ENAMETOOLONG, which spec §11.1 maps to a retryable 503, for what is the
 * client's input and never succeeds on retry.
 */
export const MAX_NAME_BYTES = 255;
/** design.md Limits: a directory listing returns at most this many entries. */
export const MAX_LIST_ENTRIES = 2000;
/** spec §11.2: client-API text and byte windows are at most 256 KiB. */
export const MAX_FILE_WINDOW_BYTES = 256 * 1024;
/** spec §11.2: a windowed read of a large file may scan at most this much before giving up. */
export const MAX_FILE_SCAN_BYTES = 8 * 1024 * 1024;
/** spec §11.2: `limit` on `GET /file` counts at most this many lines. */
export const MAX_FILE_LINES = 2000;
/** spec §11.6: `GET /glob` `maxResults` default and maximum. */
export const DEFAULT_GLOB_RESULTS = 5000;
export const MAX_GLOB_RESULTS = 50_000;
/** An ignore file above this size is not read, so a hostile `.gitignore` cannot cost memory on every request. */
export const MAX_IGNORE_FILE_BYTES = 1024 * 1024;
/** The ignore library memoizes each tested path; a compiled matcher is rebuilt after this many tests to bound that memory. */
export const IGNORE_MATCHER_TEST_BUDGET = 200_000;
/** Workspace roots whose ignore rules stay cached (least recently used dropped first). */
export const MAX_IGNORE_ROOTS = 64;
/** spec §11.3: `GET /file/bytes` window when `maxBytes` is not given. */
export const DEFAULT_FILE_BYTES_WINDOW = 65_536;
/** spec §11.2: binary detection looks at this many leading bytes… */
export const BINARY_SNIFF_BYTES = 4096;
/** …and calls a file binary when more than this share of them are control bytes (TAB, LF, VT, FF, CR excepted). */
export const BINARY_CONTROL_RATIO = 0.3;
/** Large text files are streamed in reads of this size, so a window costs memory in proportion to itself. */
export const TEXT_READ_CHUNK_BYTES = 64 * 1024;
/** spec §11.2: a read cursor is at most this long; a longer one is refused before any decoding. */
export const MAX_CURSOR_CHARS = 1024;
/** A read cursor fingerprints this many bytes before its offset, so an in-place rewrite invalidates it (409). */
export const CURSOR_FINGERPRINT_BYTES = 64;
/** A glob pattern longer than this is refused (400), like an over-long path. */
export const MAX_GLOB_PATTERN_CHARS = 4096;
/** A glob stops (and says `truncated`) after looking at this many entries, so one request cannot walk forever. */
export const MAX_GLOB_VISITED_ENTRIES = 1_000_000;
/** Directories a glob reads ahead at once; enough to keep the thread pool busy without flooding it. */
export const GLOB_READDIR_CONCURRENCY = 8;
/** Seed 000 `workspace_read.limit` maximum: 128 KiB per gateway read. */
export const MAX_GATEWAY_READ_BYTES = 131_072;
/** Seed 000 `workspace_write.content` maximum length. */
export const MAX_WRITE_CHARS = 1_048_576;
/** Output kept per command; older output is dropped and reported, so a chatty command cannot grow memory. */
export const MAX_COMMAND_OUTPUT_BYTES = 1024 * 1024;
/** Finished commands stay pollable this long, then are reaped. */
export const COMMAND_RETENTION_MS = 10 * 60 * 1000;
/** At most this many commands per session are remembered at once (running or finished). */
export const MAX_COMMANDS_PER_SESSION = 64;
/** Seed 000 `workspace_exec.timeoutMs` is 1000–600000; a command given none is killed after this. */
export const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
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
/** Room left in a seed-000 frame for the JSON around a base64 image (ids, metadata, escaping). */
export const IMAGE_FRAME_HEADROOM_BYTES = 64 * 1024;
/** `workspace_image` re-encodes smaller at most this many times before it gives up with `image_too_large`. */
export const MAX_IMAGE_SCALE_ATTEMPTS = 8;
/** `workspace_document` parses PDFs up to this size; parsing is CPU work in the daemon's own thread. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** Extracted text of one PDF page is cut (and reported `truncated`) past this many UTF-8 bytes. */
export const MAX_PAGE_TEXT_BYTES = 256 * 1024;

/**
 * The longest delay a Node timer waits: past 2^31 - 1 ms it fires after 1 ms instead (TimeoutOverflowWarning),
 * so every configured duration that becomes a timer (deadlines, permission timeouts, the reap interval) stops here.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** spec §6.1: prompts admitted but not settled, per session (running + queued). */
export const DEFAULT_MAX_PENDING_PROMPTS = 5;
/** spec §6.1: qwen refuses a prompt with more non-text (image, audio, resource) blocks than this. */
export const MAX_PROMPT_MEDIA_BLOCKS = 256;
/** spec §5.6: a display name is cut to this many UTF-16 code units before it is checked. */
export const MAX_DISPLAY_NAME_UNITS = 256;
/** A session keeps at most this many bound pull requests (spec §5.6); the oldest drop out first. */
export const MAX_SESSION_PRS = 20;
/** spec §1: JSON bodies above this size are refused with 413. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/**
 * spec §6.1 `--rate-limit`: callers (client ids or addresses) tracked per tier at once. A flood of
 * distinct callers cannot grow memory past this; the oldest window makes room for a new caller.
 */
export const MAX_RATE_LIMIT_KEYS = 10_000;
/** spec §7.4: events kept per session for replay. */
export const DEFAULT_EVENT_RING_SIZE = 8000;
/** spec §7.4: soft maximum for `--event-ring-size`. */
export const MAX_EVENT_RING_SIZE = 1_000_000;
/** spec §7.1: `maxQueued` default and range. */
export const DEFAULT_MAX_QUEUED = 256;
export const MIN_MAX_QUEUED = 16;
export const MAX_MAX_QUEUED = 2048;
/** spec §7.5: a subscriber's live backlog may hold at most this many serialized bytes. */
export const MAX_QUEUED_BYTES = 2 * 1024 * 1024;
/** spec §7.4: replay sends at most this many serialized bytes per subscription. */
export const MAX_REPLAY_BYTES = 8 * 1024 * 1024;
/** spec §7.1: SSE subscribers per session. */
export const MAX_SUBSCRIBERS_PER_SESSION = 64;
/** spec §7.3: a heartbeat comment this often keeps proxies from closing idle streams. */
export const SSE_HEARTBEAT_MS = 15_000;
/** spec §7.3: the `retry:` directive that opens every stream, so EventSource clients reconnect after 3 s. */
export const SSE_RETRY_MS = 3000;
/** spec §7.5: a subscriber is warned once its live backlog reaches this share of either cap… */
export const SLOW_CLIENT_WARN_RATIO = 0.75;
/** …and warned again only after both backlogs have drained to this share (hysteresis, no warning storms). */
export const SLOW_CLIENT_REARM_RATIO = 0.375;
/**
 * spec §7.5, §7.7: once a stream's subscription has ended (evicted, session closed) it gets this long to
 * flush its last frames; a client that still does not read is then disconnected, so a dead peer that has
 * already left the bus (and its subscriber count) cannot keep a socket and its buffers forever.
 */
export const SSE_END_GRACE_MS = 10_000;
/** spec §9.1: pending permission requests per session; excess resolve as cancelled. */
export const MAX_PENDING_PERMISSIONS = 64;
/** spec §9.3: resolved request ids remembered for `permission_already_resolved`. */
export const RESOLVED_PERMISSIONS_REMEMBERED = 512;
/**
 * spec §2.6: client ids registered on one session at once. Every attach without a registered id mints one,
 * so a shared session attached again and again would otherwise hold every id it ever issued; past this the
 * least recently used id is dropped (its holder's next call gets `invalid_client_id` and the SDK re-attaches).
 */
export const MAX_CLIENTS_PER_SESSION = 1024;
/** Tool-calling rounds the built-in agent may take in one turn before it stops. */
export const DEFAULT_MAX_TURN_ITERATIONS = 50;
/** spec §10.1: transcript page size default and maximum. */
export const DEFAULT_TRANSCRIPT_LIMIT = 100;
export const MAX_TRANSCRIPT_LIMIT = 500;
/** spec §10.1: a transcript page may not serialize to more than this. */
export const MAX_TRANSCRIPT_PAGE_BYTES = 8 * 1024 * 1024;
/** spec §10.1: a `beforeRecordId` / `atRecordId` anchor is at most this long. */
export const MAX_TRANSCRIPT_ANCHOR_CHARS = 200;
/** A transcript cursor or snapshot token is at most this long; a longer one is refused before any decoding. */
export const MAX_TRANSCRIPT_TOKEN_CHARS = 1024;
/** spec §5.3: a load replays at most this many of the newest records when the client names no `historyPageSize`… */
export const DEFAULT_COMPACTED_REPLAY_RECORDS = 500;
/** …and at most this many serialized bytes (qwen's `--compacted-replay-max-bytes` default); older records are paged. */
export const MAX_COMPACTED_REPLAY_BYTES = 4 * 1024 * 1024;
/** spec §5.3: restore budget advertised as `limits.sessionRestoreTimeoutMs`. */
export const SESSION_RESTORE_TIMEOUT_MS = 60_000;
/** spec §5.10: idle sessions are reaped after this long by default (0 disables). */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/** How long a remote workspace's tool call waits for a channel before failing. */
export const DEFAULT_CHANNEL_WAIT_MS = 30_000;
/** spec §2.6: client ids are 1-128 chars of this alphabet. */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The built-in agent waits at most this long for a model service's `GET /models` before using its configured default. */
export const MODEL_DISCOVERY_TIMEOUT_MS = 5_000;
/** A failed model discovery is retried only after this long, so a service without `GET /models` costs one request, not one per session. */
export const MODEL_DISCOVERY_RETRY_MS = 60_000;
/**
 * A model call that sends nothing for this long (before its first chunk or between two) is given up as
 * stalled (model_error), so a silent server cannot hold a turn forever; the `openai` client's own timeout
 * stops at the response headers.
 */
export const MODEL_STREAM_IDLE_TIMEOUT_MS = 5 * 60 * 1000;
/** The `openai` client retries 429/5xx twice by default; the daemon reports a failed model call at once (turn_error) instead. */
export const MODEL_REQUEST_RETRIES = 0;
/**
 * Connections one model service may hold open at once (each streamed turn holds one). Generous, since a turn
 * beyond it waits for a free connection; it only stops a runaway from opening sockets without end.
 */
export const MODEL_MAX_SOCKETS_PER_SERVICE = 256;
/** Idle keep-alive connections kept per model service for the next turn; the rest are closed when their answer ends. */
export const MODEL_MAX_IDLE_SOCKETS_PER_SERVICE = 16;
/**
 * An idle model connection is closed after this long (undici's default, which the global fetch used before), and
 * sooner when the server's `Keep-Alive: timeout=` asks for it, so a reused socket is rarely one the server just closed.
 */
export const MODEL_IDLE_SOCKET_MS = 4_000;
