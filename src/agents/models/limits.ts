/**
 * The bounds agents/models/ enforces, each with the reason it exists. Fixed (not configurable);
 * the ones a client may see are advertised in `/capabilities` `limits`.
 */

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

/**
 * A 429 or 5xx answer from the model (before anything streamed) is retried this many times by the built-in
 * agent, each retry shown on the stream; then the turn ends with `model_error`. Bounded, so a service that is
 * down costs a few seconds, not a stuck turn.
 */
export const MODEL_RETRY_ATTEMPTS = 3;
/** The first retry waits this long without a `Retry-After`; each later one twice as long. */
export const MODEL_RETRY_BASE_MS = 1_000;
/** A `Retry-After` longer than this is not waited for: the turn fails and says when to try again. */
export const MODEL_RETRY_MAX_DELAY_MS = 60_000;
