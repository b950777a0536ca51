import type { Logger } from './log.js';

/**
 * Store writes made from a synchronous context (an event being recorded, a
 * session changing its row), kept in the order they were submitted. The
 * repositories are asynchronous (docs/architecture.md, Persistence), but a bus
 * publishing an event must not wait for storage: it submits the write here
 * and goes on. A write starts at once when none is in flight (so the embedded
 * store writes before `submit` returns, as it always did), else after the ones
 * before it. A failure is logged (a write that must surface it wraps itself,
 * or uses `run`), never left as an unhandled rejection; `flush()` is awaited
 * wherever a read must see what was submitted (a transcript page, a load,
 * a rewind, shutdown).
 */
export class WriteChain {
  private tail: Promise<void> = Promise.resolve();
  /** The last write submitted, when it is an ordered one (`submitOrdered`): the next ordered write is made once it is. */
  private lastOrdered: Made | undefined;
  private inFlight = 0;
  private count = 0;

  constructor(
    private readonly log: Logger,
    private readonly context: Record<string, unknown>,
  ) {}

  /** Queues `write` after every write submitted before it; `what` names it in the log if it fails. */
  submit(what: string, write: () => Promise<unknown>): void {
    this.run(write).catch((err: unknown) => this.log.error({ err, ...this.context }, `${what} failed`));
  }

  /**
   * Queues `write`, which makes one store call the moment it is invoked, to be invoked as soon as
   * the write before it has made its store call rather than once that call finished: the store
   * runs calls in the order they are made (PostgreSQL's write connection is a FIFO, SQLite runs
   * them at once), so the order holds, and on PostgreSQL the two may share a round trip
   * (docs/store.md, Group commit). A write submitted any other way after it still waits for it to
   * finish, and `flush()` includes it. With `afterIo`, it starts no sooner than after this turn of
   * the event loop's I/O: whatever the current callback hands to sockets (an event frame) is
   * written first, and the store write follows.
   */
  submitOrdered(what: string, write: () => Promise<unknown>, afterIo = false): void {
    this.chain(write, true, afterIo).catch((err: unknown) => this.log.error({ err, ...this.context }, `${what} failed`));
  }

  /** Whether no write is queued or running: something submitted now would start at once. */
  get idle(): boolean {
    return this.inFlight === 0;
  }

  /** How many writes were ever submitted: a caller that appends to its last write tells by it that nothing came after. */
  get submitted(): number {
    return this.count;
  }

  /**
   * Queues `write` like `submit`, for a caller that must act on its result (e.g. send a frame only
   * once its journal row is stored): the promise settles with the write's, and a failure is the caller's.
   */
  run<T>(write: () => Promise<T>): Promise<T> {
    return this.chain(write, false, false);
  }

  private chain<T>(write: () => Promise<T>, ordered: boolean, afterIo: boolean): Promise<T> {
    const made = new Made();
    let settle!: { resolve: (value: T) => void; reject: (err: unknown) => void };
    const result = new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
    const begin = (): void => {
      let call: Promise<T>;
      try {
        call = write();
      } catch (err) {
        call = Promise.reject(err);
      }
      // Its store call is made: an ordered write waiting for that is made now, in this same tick.
      made.mark();
      call.then(settle.resolve, settle.reject);
    };
    const go = afterIo ? () => void setImmediate(begin) : begin;
    if (this.inFlight === 0 && !afterIo) begin();
    else if (ordered && this.lastOrdered) this.lastOrdered.whenMade(go);
    else void this.tail.then(go);
    this.inFlight++;
    this.count++;
    const settled = (): void => {
      this.inFlight--;
    };
    // Any other write began after every write before it finished; an ordered one may finish first.
    this.tail = (ordered ? this.tail.then(() => result) : result).then(settled, settled);
    this.lastOrdered = ordered ? made : undefined;
    return result;
  }

  /** Resolves once every write submitted so far has settled (failed ones included: they were logged). */
  flush(): Promise<void> {
    return this.tail;
  }
}

/** Whether a write has made its store call yet, and what to do the moment it has. */
class Made {
  private done = false;
  private readonly next: Array<() => void> = [];

  whenMade(then: () => void): void {
    if (this.done) then();
    else this.next.push(then);
  }

  mark(): void {
    this.done = true;
    for (const then of this.next.splice(0)) then();
  }
}
