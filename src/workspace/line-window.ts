/**
 * Cuts a line window out of UTF-8 bytes fed in order, chunk by chunk, so the
 * same rules serve a file held in memory and a large file streamed from disk
 * (docs/client-api.md §11.2).
 *
 * Lines split on LF; a CRLF line keeps its CR. Inside the window the LFs
 * between lines are kept; the LF after the window's last line is not, unless
 * the window runs to the end of the file (then the content is the rest of the
 * file verbatim). Offsets are absolute positions in whatever space the caller
 * feeds (file offsets when streaming).
 */
export interface WindowSpec {
  /** Lines to pass over before the window starts (`line - 1`). */
  readonly skipLines: number;
  /** Lines the window holds at most (Infinity: to the end). */
  readonly limit: number;
  /** Bytes of content collected at most; past this the window is cut. */
  readonly maxContentBytes: number;
  /** Bytes the skip phase may pass over before giving up (Infinity: no bound). */
  readonly maxSkipBytes: number;
}

const LF = 0x0a;
const CR = 0x0d;

export class LineWindowScanner {
  /** Where the window starts; undefined while lines are still being skipped. */
  windowStart: number | undefined;
  /** Where the window ends (exclusive), once known. */
  windowEnd: number | undefined;
  /** Start of the line after the window, when the window ended on its line limit. */
  nextStart: number | undefined;
  /** More content existed than `maxContentBytes` allowed. */
  overflow = false;
  /** The skip phase passed `maxSkipBytes` without reaching the window. */
  scanExceeded = false;
  /** Whether the LF just before the window was part of a CRLF. */
  crlfBeforeWindow: boolean | undefined;
  /** LFs seen in the skip phase and inside the window (its terminator included). */
  newlines = 0;

  private skipped = 0;
  private lines = 0;
  private collected = 0;
  private readonly pieces: Buffer[] = [];
  private lastByte = -1;
  private finished = false;

  constructor(
    private readonly spec: WindowSpec,
    private readonly base: number,
  ) {
    if (spec.skipLines === 0) this.windowStart = base;
  }

  get done(): boolean {
    return this.finished;
  }

  /** Feeds the bytes found at absolute offset `at` (contiguous with the previous chunk). */
  feed(chunk: Buffer, at: number): void {
    let i = 0;
    while (!this.finished && this.windowStart === undefined) {
      const nl = chunk.indexOf(LF, i);
      if (nl === -1) {
        if (at + chunk.length - this.base > this.spec.maxSkipBytes) {
          this.scanExceeded = true;
          this.finished = true;
        }
        this.remember(chunk);
        return;
      }
      this.newlines++;
      this.skipped++;
      i = nl + 1;
      if (this.skipped === this.spec.skipLines) {
        this.windowStart = at + i;
        this.crlfBeforeWindow = (nl > 0 ? chunk[nl - 1] : this.lastByte) === CR;
      }
    }
    while (!this.finished && i < chunk.length) {
      const nl = chunk.indexOf(LF, i);
      const lineEnd = nl === -1 ? chunk.length : nl;
      const last = nl !== -1 && this.lines + 1 === this.spec.limit;
      const take = nl === -1 || last ? lineEnd : nl + 1;
      if (!this.collect(chunk, i, take)) return;
      if (nl === -1) break;
      this.newlines++;
      this.lines++;
      i = nl + 1;
      if (last) {
        this.windowEnd = at + nl;
        this.nextStart = at + nl + 1;
        this.finished = true;
      }
    }
    this.remember(chunk);
  }

  /** The data ended at absolute offset `eof`. */
  finish(eof: number): void {
    if (this.finished) return;
    this.finished = true;
    if (this.windowStart === undefined) this.windowStart = eof;
    this.windowEnd = eof;
  }

  /** The raw bytes of the window (possibly cut at `maxContentBytes`). */
  content(): Buffer {
    return this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, this.collected);
  }

  private collect(chunk: Buffer, from: number, to: number): boolean {
    const room = this.spec.maxContentBytes - this.collected;
    if (to - from > room) {
      // One byte past the cap is kept so the decoder can tell a cut character from a whole one.
      this.pieces.push(Buffer.from(chunk.subarray(from, from + room + 1)));
      this.collected += room + 1;
      this.overflow = true;
      this.finished = true;
      return false;
    }
    if (to > from) {
      this.pieces.push(Buffer.from(chunk.subarray(from, to)));
      this.collected += to - from;
    }
    return true;
  }

  private remember(chunk: Buffer): void {
    if (chunk.length > 0) this.lastByte = chunk[chunk.length - 1]!;
  }
}

/** Counts LF and CRLF breaks in `bytes`; `before` is the byte preceding it (-1 when none). */
export function countBreaks(bytes: Uint8Array, before = -1): { crlf: number; lf: number } {
  let crlf = 0;
  let lf = 0;
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let nl = buf.indexOf(LF); nl !== -1; nl = buf.indexOf(LF, nl + 1)) {
    if ((nl > 0 ? buf[nl - 1] : before) === CR) crlf++;
    else lf++;
  }
  return { crlf, lf };
}
