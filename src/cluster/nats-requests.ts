import { randomBytes } from 'node:crypto';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { BusRequestError } from './transport.js';

/** The status NATS answers on a reply subject when nothing listens on the request's subject. */
const NO_RESPONDERS_STATUS = 503;

interface Pending {
  readonly subject: string;
  readonly resolve: (data: Uint8Array) => void;
  readonly reject: (err: BusRequestError) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Request/reply over one wildcard inbox per connection, as the client's own muxed
 * `request` does, but without its per-request costs on the forwarding path: that one
 * builds an Error (stack and all) for every request it settles, answered or not, and
 * races two promises. Here a request is a map entry and a timer, and an Error is only
 * made for a request that fails.
 */
export class NatsRequests {
  private readonly pending = new Map<string, Pending>();
  private readonly prefix = `_INBOX.${randomBytes(11).toString('hex')}.`;
  private inbox: Subscription | undefined;
  private next = 0;

  constructor(private readonly nc: NatsConnection) {
    void nc.closed().then(() => this.failAll('the bus connection closed'), () => this.failAll('the bus connection closed'));
  }

  request(subject: string, data: Uint8Array | string, timeoutMs: number): Promise<Uint8Array> {
    // Subscribed before the first request is published, on the same connection: the server sees the
    // subscription first. The client renews it by itself after a reconnect.
    this.inbox ??= this.nc.subscribe(`${this.prefix}*`, { callback: (err, msg) => {
      if (err === null) this.answer(msg);
    } });
    const token = (this.next++).toString(36);
    return new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(new BusRequestError('timeout', `no answer on ${subject} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(token, { subject, resolve, reject, timer });
      try {
        this.nc.publish(subject, data, { reply: `${this.prefix}${token}` });
      } catch (err) {
        this.settle(token);
        reject(new BusRequestError('unreachable', (err as Error).message));
      }
    });
  }

  private answer(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const pending = this.settle(token);
    if (pending === undefined) return;
    if (msg.data.length === 0 && msg.headers?.code === NO_RESPONDERS_STATUS) {
      pending.reject(new BusRequestError('no_responders', `nobody answers on ${pending.subject}`));
    } else {
      pending.resolve(msg.data);
    }
  }

  private settle(token: string): Pending | undefined {
    const pending = this.pending.get(token);
    if (pending === undefined) return undefined;
    this.pending.delete(token);
    clearTimeout(pending.timer);
    return pending;
  }

  private failAll(reason: string): void {
    for (const token of [...this.pending.keys()]) this.settle(token)?.reject(new BusRequestError('unreachable', reason));
  }
}
