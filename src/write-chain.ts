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
   * Queues `write` like `submit`, but starts it no sooner than after this turn of the event loop's
   * I/O: whatever the current callback hands to sockets (an event frame) is written first, and the
   * store write follows. Later submissions still wait for it, and `flush()` includes it.
   */
  submitAfterIo(what: string, write: () => Promise<unknown>): void {
    this.submit(what, () => new Promise<void>((resolve) => setImmediate(resolve)).then(write));
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
    const start = (): Promise<T> => {
      try {
        return write();
      } catch (err) {
        return Promise.reject(err);
      }
    };
    const result = this.inFlight === 0 ? start() : this.tail.then(start);
    this.inFlight++;
    this.count++;
    const settled = (): void => {
      this.inFlight--;
    };
    this.tail = result.then(settled, settled);
    return result;
  }

  /** Resolves once every write submitted so far has settled (failed ones included: they were logged). */
  flush(): Promise<void> {
    return this.tail;
  }
}
