/**
 * What the cluster bus needs from a message broker (docs/cluster-bus.md): subjects to
 * publish on and subscribe to, and request/reply with a deadline. `nats-transport.ts`
 * implements it on NATS; the rest of `cluster/` never sees a NATS type.
 */
export interface BusTransport {
  /** The broker's largest message (NATS `max_payload`): a bigger one is refused before it is sent. */
  readonly maxPayload: number;
  /** Fire and forget; a message nobody listens to is dropped. */
  publish(subject: string, data: Uint8Array | string): void;
  /** Every message on `subject`, in the order the broker delivers them. */
  subscribe(subject: string, onMessage: (data: Uint8Array) => void): BusSubscription;
  /** Answers each request on `subject` with what `handler` resolves to. */
  serve(subject: string, handler: (data: Uint8Array) => Promise<Uint8Array | string>): BusSubscription;
  /** One request, one answer, within `timeoutMs`; fails with a `BusRequestError`. */
  request(subject: string, data: Uint8Array | string, timeoutMs: number): Promise<Uint8Array>;
  /** Resolves once the broker has seen everything sent so far (subscriptions included); fails with a `BusRequestError`. */
  flush(): Promise<void>;
  /** Whether the connection to the broker is up now (`/health`). */
  reachable(): boolean;
  /** Drains and closes; idempotent. */
  close(): Promise<void>;
}

export interface BusSubscription {
  unsubscribe(): void;
}

export type BusFailure = 'timeout' | 'no_responders' | 'unreachable';

/** A request that got no answer: nobody answered in time, nobody listens, or the broker is gone. */
export class BusRequestError extends Error {
  override name = 'BusRequestError';
  constructor(readonly reason: BusFailure, message: string) {
    super(message);
  }
}
