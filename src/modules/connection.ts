import type { Socket } from 'node:net';

export interface ConnectionOptions {
  /** docs/modules.md MOST_LINE: a question longer than this is not read. */
  readonly maxLineBytes: number;
  /** The whole question must arrive within this long. */
  readonly readTimeoutMs: number;
  /** Answers one question line (its bytes, without the newline). Never rejects. */
  answer(line: Buffer): Promise<string>;
  /** The line written to a question over `maxLineBytes`. */
  readonly tooLong: string;
  /** The line written when no whole question arrived in time. */
  readonly tooSlow: string;
}

/**
 * One module connection (docs/modules.md): one question line in, one answer line out,
 * then the connection closes. The line ends at the first newline, or at the
 * peer's end of input. Bytes past `maxLineBytes` are never kept, and one
 * deadline runs from the connection's start: the whole question must arrive
 * by then, and the connection is closed by then at the latest, so a peer that
 * is slow, silent or endless holds its slot for at most `readTimeoutMs` (the
 * documented figure, not twice it). After an early answer, anything more the
 * peer sends is read and dropped until the peer closes or the deadline ends it;
 * an answer given at the deadline closes the connection once it is flushed.
 */
export function serveConnection(socket: Socket, options: ConnectionOptions): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let answered = false;
  /** The whole question is in: what follows is dropped while its answer is looked up. */
  let asked = false;
  const deadline = performance.now() + options.readTimeoutMs;
  const arm = (ms: number, then: () => void) => {
    const t = setTimeout(then, ms);
    t.unref();
    return t;
  };
  let timer = arm(options.readTimeoutMs, () => finish(options.tooSlow));
  const finish = (line: string) => {
    if (answered) return;
    answered = true;
    chunks.length = 0;
    clearTimeout(timer);
    const left = deadline - performance.now();
    if (left > 1) {
      socket.end(line);
      timer = arm(left, () => socket.destroy());
    } else {
      socket.end(line, () => socket.destroy());
    }
  };

  const ask = () => {
    asked = true;
    void options.answer(Buffer.concat(chunks, size)).then(finish);
  };

  socket.on('data', (chunk: Buffer) => {
    if (answered || asked) return;
    const newline = chunk.indexOf(0x0a);
    const upTo = newline < 0 ? chunk.length : newline;
    if (size + upTo > options.maxLineBytes) return finish(options.tooLong);
    chunks.push(upTo === chunk.length ? chunk : chunk.subarray(0, upTo));
    size += upTo;
    if (newline >= 0) ask();
  });
  socket.on('end', () => {
    if (!answered && !asked) ask();
  });
  socket.on('error', () => socket.destroy());
  socket.on('close', () => clearTimeout(timer));
}
