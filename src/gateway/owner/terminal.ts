import { createInterface, type Interface } from 'node:readline';
import { BerthError } from '../../protocol/errors/index.js';

/**
 * The owner's terminal: one question at a time (calls arrive concurrently, a
 * person answers in order), each a line of text in and a line back. Closing
 * it answers every open question with `question_unanswered`.
 */
export class TerminalPrompter {
  private readonly rl: Interface;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly closers = new Set<() => void>();

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
  ) {
    this.rl = createInterface({ input, output, terminal: false });
    this.rl.on('close', () => this.close());
  }

  /** Writes `text`, waits for the owner's line; rejects when the terminal closes or `signal` aborts first. */
  ask(text: string, signal?: AbortSignal): Promise<string> {
    const turn = this.queue.then(() => this.askNow(text, signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private askNow(text: string, signal?: AbortSignal): Promise<string> {
    if (this.closed) return Promise.reject(unanswered('the terminal is closed'));
    if (signal?.aborted) return Promise.reject(unanswered('the call was cancelled'));
    return new Promise<string>((resolve, reject) => {
      const done = () => {
        this.rl.off('line', onLine);
        signal?.removeEventListener('abort', onAbort);
        this.closers.delete(onClose);
      };
      const onLine = (line: string) => {
        done();
        resolve(line.trim());
      };
      const onAbort = () => {
        done();
        this.output.write('\n');
        reject(unanswered('the call was cancelled'));
      };
      const onClose = () => {
        done();
        reject(unanswered('the terminal closed'));
      };
      this.rl.on('line', onLine);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.closers.add(onClose);
      this.output.write(text);
    });
  }

  /** Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of [...this.closers]) c();
    this.rl.close();
  }
}

function unanswered(why: string): BerthError {
  return new BerthError('question_unanswered', `The owner did not answer: ${why}`);
}
