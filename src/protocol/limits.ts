/**
 * Bounds of the wire itself, the same on both ends (the daemon and the app SDK): sizes and counts
 * the protocol notes in docs/ define. The frame size here is only the default; a daemon enforces
 * and advertises its own `Config.maxFrameBytes`.
 */

/** docs/gateway.md `limits.frameBytes`: a larger WebSocket frame closes the channel with 1009. */
export const DEFAULT_FRAME_BYTES = 2 * 1024 * 1024;
/** A launch intention (docs/gateway.md: pinned by the owner, sent with every call) is at most this many characters. */
export const MAX_INTENTION_CHARS = 1000;
/** docs/tool-protocol.md: a batch runs 1 to 32 calls in order. */
export const MAX_BATCH_CALLS = 32;
/** docs/tool-protocol.md: `after.delayMilliseconds` accepts 0 through 2000. */
export const MAX_EVIDENCE_DELAY_MS = 2000;
/** docs/tool-protocol.md: payloads whose compact JSON reaches 32 KiB may travel gzip-base64 wrapped. */
export const COMPRESSION_THRESHOLD_BYTES = 32 * 1024;
/** docs/tool-protocol.md, Catalog: at most 1000 tools in one catalog answer. */
export const MAX_CATALOG_TOOLS = 1000;
/** A decoded gzip wrapper may not inflate past this, so a tiny frame cannot become a memory bomb. */
export const MAX_DECOMPRESSED_BYTES = 16 * 1024 * 1024;
/** docs/gateway.md `workspace_tool.name` maxLength: tool names and ids are at most this long. */
export const MAX_TOOL_NAME_CHARS = 200;
/** A caller's call id (receipt key) is at most this long, so receipts stay small. */
export const MAX_CALL_ID_CHARS = 200;
/** A catalog `query`/`feature` text is at most this long; search terms beyond it only cost time. */
export const MAX_CATALOG_QUERY_CHARS = 1000;
/** Tool protocol: a frame id (`id`, `replyTo`) or session id is at most this long. */
export const MAX_FRAME_ID_CHARS = 200;
/** docs/modules.md `MOST_LINE`: the longest question line read, in bytes. */
export const MODULE_MOST_LINE = 256 * 1024;
/** docs/modules.md `MOST_TEXT`: the most characters a message may have. */
export const MODULE_MOST_TEXT = 16_000;
/** A JSON value nested deeper than this is refused whole (`nesting_too_deep`) before any recursive code walks it. */
export const MAX_JSON_DEPTH = 128;
/**
 * Bounds on one application tool's input schema, checked by a cheap walk before
 * anything compiles it: compiling costs time in proportion to the schema, so
 * these bound the one compile a tool's first call may cost. Real tool schemas
 * have a few dozen properties and a depth of three or four.
 */
export const MAX_SCHEMA_NODES = 256;
export const MAX_SCHEMA_DEPTH = 16;
export const MAX_SCHEMA_PROPERTIES = 128;
/** Characters of text in one schema (keys, descriptions, enum strings…). */
export const MAX_SCHEMA_CHARS = 64 * 1024;
/** One `pattern` (or `patternProperties` key); it must also be one the linear-time engine can run. */
export const MAX_SCHEMA_PATTERN_CHARS = 512;
