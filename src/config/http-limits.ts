import { MAX_TIMER_MS } from './defaults.js';

/**
 * How long an HTTP peer may take and how many connections it may hold. Every
 * field is overridable through `Config.httpLimits` (tests shorten them) and
 * advertised in `/capabilities` `limits`.
 */
export interface HttpLimits {
  /** A request's headers and body must both have arrived within this long, so a body that drips is cut. */
  readonly requestTimeoutMs: number;
  /** The request line and headers must have arrived within this long. */
  readonly headersTimeoutMs: number;
  /** A socket with no traffic either way is closed after this long. */
  readonly idleTimeoutMs: number;
  /** An idle keep-alive connection between requests is closed after this long. */
  readonly keepAliveTimeoutMs: number;
  /** Open connections (SSE and WebSockets included), daemon-wide. */
  readonly maxConnections: number;
  /** Open connections from one remote address, so one peer cannot take every slot. */
  readonly maxConnectionsPerAddress: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  // 10 MiB (the body limit) at a slow 1 Mbit/s still fits.
  requestTimeoutMs: 120_000,
  headersTimeoutMs: 15_000,
  // SSE heartbeats (every 15 s) keep live streams well inside it.
  idleTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
  // Well below the common 1,024 descriptor limit, so connections alone can never starve
  // the daemon of the descriptors its commands, database and files need.
  maxConnections: 512,
  maxConnectionsPerAddress: 256,
};

/** Checks limits given by an embedder or a test; throws a sentence naming the bad field. */
export function checkHttpLimits(limits: HttpLimits): void {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1 || value > MAX_TIMER_MS) {
      throw new Error(`httpLimits.${name} must be a positive integer, got ${value}`);
    }
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error('httpLimits.headersTimeoutMs must not exceed requestTimeoutMs');
  }
}
