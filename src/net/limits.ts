/**
 * The bounds net/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

/** docs/client-api.md §7.3: the `retry:` directive that opens every stream, so EventSource clients reconnect after 3 s. */
export const SSE_RETRY_MS = 3000;
