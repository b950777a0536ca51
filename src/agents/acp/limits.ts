/** Bounds of the external-agent driver (issue 12), each with its reason. */

/** stderr kept per agent process: enough for the error it died with, never its whole log. */
export const STDERR_TAIL_CHARS = 4000;

/** How long an agent gets to exit on SIGTERM before its group is killed outright. */
export const AGENT_KILL_GRACE_MS = 2000;

/** The most `fs/read_text_file` returns: a file larger than this is refused, not cut. */
export const MAX_AGENT_READ_BYTES = 8 * 1024 * 1024;

/** Characters of an old conversation given to a fresh agent session when it cannot load its own. */
export const MAX_SEED_TRANSCRIPT_CHARS = 64_000;

/** Updates an agent sends before its session listens (commands, modes): a handful in practice; more are dropped. */
export const MAX_EARLY_UPDATES = 32;
