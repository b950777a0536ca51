/** A server that does not finish `initialize` (or answer `tools/list`) in this long is reported unavailable (issue 15). */
export const MCP_INIT_TIMEOUT_MS = 15_000;
/** One `tools/call` waits this long at most. */
export const MCP_CALL_TIMEOUT_MS = 120_000;
/** `tools/list` pages followed at most (a server listing 10,000 tools is cut, not followed forever). */
export const MCP_MAX_LIST_PAGES = 20;
/** A server nobody called for this long is stopped; its tools stay listed and the next call starts it again. */
export const MCP_IDLE_STOP_MS = 10 * 60_000;
/** Restarts after a server died: the first waits this long, each next one twice as long, up to the maximum. */
export const MCP_RESTART_BASE_MS = 500;
export const MCP_RESTART_MAX_MS = 60_000;
/** How long the first session of a workspace waits for its MCP servers before it goes on without the late ones. */
export const MCP_READY_WAIT_MS = 20_000;
