import type { SubscribeOptions, Subscription } from '../events/types.js';
import type { SessionLocation } from './placement.js';

/** A client API request as it travels to the node that runs its session (docs/cluster-bus.md). */
export interface ForwardedRequest {
  readonly method: string;
  /** Path and query, as the client sent them. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[]>>;
  /** The body bytes, base64; absent when there was none. */
  readonly body?: string;
  /** The client's address, so the owner's per-address rules (rate limits) see the client, not the bus. */
  readonly remoteAddress?: string;
}

/** The owner's answer, returned to the client as it is. */
export interface ForwardedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  /** The body bytes, base64. */
  readonly body: string;
}

/**
 * What a face asks of the cluster when several daemons share one store: where a
 * session runs, and how to reach it there. Absent from the core of a daemon alone.
 */
export interface ClusterPort {
  readonly nodeId: string;
  locate(sessionId: string): Promise<SessionLocation>;
  /** Runs `request` on node `nodeId`; refuses with 503 `owner_unreachable` or 413 `bus_message_too_large`. */
  forward(nodeId: string, request: ForwardedRequest): Promise<ForwardedResponse>;
  /** The session's event stream as node `nodeId` would serve it, replay rules and queue bounds included. */
  follow(sessionId: string, nodeId: string, options: SubscribeOptions): Promise<Subscription>;
  /** Whether this node's bus connection is up (`/health`). */
  reachable(): boolean;
  /** Whether these headers carry this node's mark of a request it runs for another node (never forwarded again). */
  isForwarded(headers: Readonly<Record<string, string | string[] | undefined>>): boolean;
}
