/**
 * The bounds transcript/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

/** docs/client-api.md §10.1: transcript page size default and maximum. */
export const DEFAULT_TRANSCRIPT_LIMIT = 100;
export const MAX_TRANSCRIPT_LIMIT = 500;
/** docs/client-api.md §10.1: a transcript page may not serialize to more than this. */
export const MAX_TRANSCRIPT_PAGE_BYTES = 8 * 1024 * 1024;
/** docs/client-api.md §10.1: a `beforeRecordId` / `atRecordId` anchor is at most this long. */
export const MAX_TRANSCRIPT_ANCHOR_CHARS = 200;
/** A transcript cursor or snapshot token is at most this long; a longer one is refused before any decoding. */
export const MAX_TRANSCRIPT_TOKEN_CHARS = 1024;
/**
 * A transcript record whose data serializes to more than this is stored as a preview, with the whole record
 * kept beside it as an artifact (read back by the export): one answer making 1,500 large reads wrote a 382 MB
 * transcript whose every page, load and history rebuild carried it all (issue 16).
 */
export const MAX_RECORD_BYTES = 64 * 1024;
/** In a preview, a string longer than this is cut to it (and says how much was left out). */
export const RECORD_PREVIEW_CHARS = 4 * 1024;
