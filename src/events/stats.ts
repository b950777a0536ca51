/**
 * Daemon-wide event-stream counters for deep health (`GET /health?deep=1`).
 * One instance is shared by every bus and every SSE writer; each only bumps
 * counters here, so reading them never walks a session.
 */
export interface EventBusCounters {
  /** Buses open now (one per live session). */
  readonly busesOpen: number;
  /** Subscriptions attached to a bus now. */
  readonly subscribers: number;
  /** SSE responses being written now (an evicted stream stays open while it flushes). */
  readonly openStreams: number;
  readonly eventsPublished: number;
  readonly subscriptionsOpened: number;
  readonly subscriptionsRefused: number;
  readonly slowClientWarnings: number;
  readonly clientsEvicted: number;
}

export class EventBusStats {
  private counters = {
    busesOpen: 0,
    subscribers: 0,
    openStreams: 0,
    eventsPublished: 0,
    subscriptionsOpened: 0,
    subscriptionsRefused: 0,
    slowClientWarnings: 0,
    clientsEvicted: 0,
  };

  busOpened(): void {
    this.counters.busesOpen++;
  }
  busClosed(): void {
    this.counters.busesOpen--;
  }
  published(): void {
    this.counters.eventsPublished++;
  }
  subscribed(): void {
    this.counters.subscribers++;
    this.counters.subscriptionsOpened++;
  }
  refused(): void {
    this.counters.subscriptionsRefused++;
  }
  unsubscribed(): void {
    this.counters.subscribers--;
  }
  warned(): void {
    this.counters.slowClientWarnings++;
  }
  evicted(): void {
    this.counters.clientsEvicted++;
  }
  streamOpened(): void {
    this.counters.openStreams++;
  }
  streamClosed(): void {
    this.counters.openStreams--;
  }

  snapshot(): EventBusCounters {
    return { ...this.counters };
  }
}
