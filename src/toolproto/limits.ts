/**
 * The bounds toolproto/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

import { MAX_CATALOG_TOOLS } from '../protocol/limits.js';

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
