/**
 * The bounds workspace/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

/** A workspace path longer than this is refused before it touches the file system (Linux PATH_MAX). */
export const MAX_PATH_CHARS = 4096;
/**
 * A path component longer than this many UTF-8 bytes is refused before it touches the file system
 * (NAME_MAX on Linux and the common file systems): the request can never succeed, so it is a 400
 * `name_too_long`, not a retryable I/O failure.
 */
export const MAX_NAME_BYTES = 255;
/** docs/architecture.md Limits: a directory listing returns at most this many entries. */
export const MAX_LIST_ENTRIES = 2000;
/** docs/client-api.md §11.2: client-API text and byte windows are at most 256 KiB. */
export const MAX_FILE_WINDOW_BYTES = 256 * 1024;
/** docs/client-api.md §11.2: a windowed read of a large file may scan at most this much before giving up. */
export const MAX_FILE_SCAN_BYTES = 8 * 1024 * 1024;
/** docs/client-api.md §11.2: `limit` on `GET /file` counts at most this many lines. */
export const MAX_FILE_LINES = 2000;
/** docs/client-api.md §11.6: `GET /glob` `maxResults` default and maximum. */
export const DEFAULT_GLOB_RESULTS = 5000;
export const MAX_GLOB_RESULTS = 50_000;
/** An ignore file above this size is not read, so a hostile `.gitignore` cannot cost memory on every request. */
export const MAX_IGNORE_FILE_BYTES = 1024 * 1024;
/** The ignore library memoizes each tested path; a compiled matcher is rebuilt after this many tests to bound that memory. */
export const IGNORE_MATCHER_TEST_BUDGET = 200_000;
/** Workspace roots whose ignore rules stay cached (least recently used dropped first). */
export const MAX_IGNORE_ROOTS = 64;
/** docs/client-api.md §11.3: `GET /file/bytes` window when `maxBytes` is not given. */
export const DEFAULT_FILE_BYTES_WINDOW = 65_536;
/** docs/client-api.md §11.2: binary detection looks at this many leading bytes… */
export const BINARY_SNIFF_BYTES = 4096;
/** …and calls a file binary when more than this share of them are control bytes (TAB, LF, VT, FF, CR excepted). */
export const BINARY_CONTROL_RATIO = 0.3;
/** Large text files are streamed in reads of this size, so a window costs memory in proportion to itself. */
export const TEXT_READ_CHUNK_BYTES = 64 * 1024;
/**
 * A file no larger than this by its fstat at open is read inline rather than through the thread
 * pool: a pool round trip (hand-off, wake-up, completion) costs several times a page-cache read
 * of this size, while a read of a file this small blocks the event loop for at most one small I/O.
 * Larger files keep every read in the pool, so a big scan never holds the loop.
 */
export const INLINE_READ_MAX_BYTES = 64 * 1024;
/**
 * A file write of at most this many bytes makes its calls after the create (write, link or
 * rename, unlink) inline for the same reason: each is a page-cache or directory operation of
 * a few microseconds, and a replacement makes five or six of them. Larger writes, and every
 * create (tools/builtin/replace-ops.ts says why), stay in the pool.
 */
export const INLINE_WRITE_MAX_BYTES = 64 * 1024;
/**
 * A directory no larger than one block by its fstat is read inline, for the same reason: ext4 and
 * btrfs grow a directory by its names, tmpfs by its entries, so a few hundred short names fit.
 */
export const INLINE_DIRECTORY_MAX_BYTES = 4096;
/** An inline directory read stops past this many entries (a file system that reports sizes some other way) and goes to the pool. */
export const INLINE_DIRECTORY_ENTRIES = 256;
/** Devices whose file system type an inline directory read remembers (small-directory.ts); the table starts over past this. */
export const MAX_SIZE_CHECKED_DEVICES = 64;
/** docs/client-api.md §11.2: a read cursor is at most this long; a longer one is refused before any decoding. */
export const MAX_CURSOR_CHARS = 1024;
/** A read cursor fingerprints this many bytes before its offset, so an in-place rewrite invalidates it (409). */
export const CURSOR_FINGERPRINT_BYTES = 64;
/** A glob pattern longer than this is refused (400), like an over-long path. */
export const MAX_GLOB_PATTERN_CHARS = 4096;
/** A glob stops (and says `truncated`) after looking at this many entries, so one request cannot walk forever. */
export const MAX_GLOB_VISITED_ENTRIES = 1_000_000;
/** Directories a glob reads ahead at once; enough to keep the thread pool busy without flooding it. */
export const GLOB_READDIR_CONCURRENCY = 8;
