/** Bounds of the external-agent driver (issue 12), each with its reason. */

/** stderr kept per agent process: enough for the error it died with, never its whole log. */
export const STDERR_TAIL_CHARS = 4000;

/** How long an agent gets to exit on SIGTERM before its group is killed outright. */
export const AGENT_KILL_GRACE_MS = 2000;

/** One ACP message: the SDK's own default (a whole file in a `fs/write_text_file` fits). */
export const MAX_ACP_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The most `fs/read_text_file` returns: a file larger than this is refused, not cut. */
export const MAX_AGENT_READ_BYTES = 8 * 1024 * 1024;

/** Characters of an old conversation given to a fresh agent session when it cannot load its own. */
export const MAX_SEED_TRANSCRIPT_CHARS = 64_000;

/** An agent idle this long (no turn) has its process stopped; the next prompt starts a new one. */
export const AGENT_IDLE_MS = 10 * 60_000;

/** Updates an agent sends before its session listens (commands, modes): a handful in practice; more are dropped. */
export const MAX_EARLY_UPDATES = 32;
