import { DaemonClient, type DaemonEvent } from '@qwen-code/sdk/daemon';
import type { Stack } from './stack.js';

/** The official SDK client pointed at a test daemon (a token, when the daemon has one, goes on every request). */
export function sdkClient(stack: Stack, options: { token?: string } = {}): DaemonClient {
  return new DaemonClient({ baseUrl: stack.daemon.url, ...(options.token ? { token: options.token } : {}) });
}

type Predicate = (event: DaemonEvent) => boolean;

/**
 * Drains an SDK event iteration in the background and lets a test wait for
 * the event it expects next. Waits have no timers of their own: an event
 * that never comes fails the test through the runner's timeout.
 */
export class EventLog {
  readonly events: DaemonEvent[] = [];
  private readonly waiters: { match: Predicate; resolve: (e: DaemonEvent) => void }[] = [];
  private readonly controller = new AbortController();
  /** Settles when the iteration ends; holds its error, if any. */
  readonly ended: Promise<unknown>;
  error: unknown;

  constructor(open: (signal: AbortSignal) => AsyncIterable<DaemonEvent>) {
    this.ended = (async () => {
      try {
        for await (const event of open(this.controller.signal)) this.push(event);
      } catch (err) {
        if (!this.controller.signal.aborted) this.error = err;
      }
    })();
  }

  private push(event: DaemonEvent): void {
    this.events.push(event);
    for (const w of [...this.waiters]) {
      if (w.match(event)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(event);
      }
    }
  }

  /** The first event (already received or still to come) that matches. */
  waitFor(match: Predicate): Promise<DaemonEvent> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** The next matching event that arrives after this call. */
  next(match: Predicate): Promise<DaemonEvent> {
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  ofType(type: string): DaemonEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  /** Stops the iteration (the SDK aborts its fetch; the daemon sees the stream close). Idempotent. */
  async close(): Promise<void> {
    this.controller.abort();
    await this.ended;
  }
}

export const ofType =
  (type: string, extra: (data: any) => boolean = () => true): Predicate =>
  (e) =>
    e.type === type && extra(e.data as any);

/** `session_update` whose `update.sessionUpdate` is `kind`. */
export const update =
  (kind: string, extra: (u: any) => boolean = () => true): Predicate =>
  (e) =>
    e.type === 'session_update' && (e.data as any)?.update?.sessionUpdate === kind && extra((e.data as any).update);

export const terminalOf =
  (promptId: string): Predicate =>
  (e) =>
    (e.type === 'turn_complete' || e.type === 'turn_error') && (e.data as any)?.promptId === promptId;

export const text = (s: string) => [{ type: 'text' as const, text: s }];
