/** A window of a command's output: the bytes from `start` and where they end. */
export interface HeldBytes {
  readonly start: number;
  readonly bytes: Buffer;
}

/**
 * The last `capacity` bytes of an output stream, addressed by absolute offset
 * (bytes since the command started). Older bytes are dropped, never the newest,
 * so a chatty command costs bounded memory and a poll still sees how it ends;
 * `droppedBytes` says how much was lost.
 */
export class OutputTail {
  private readonly chunks: Buffer[] = [];
  private held = 0;
  private total = 0;

  constructor(private readonly capacity: number) {}

  get totalBytes(): number {
    return this.total;
  }

  /** Offset of the oldest byte still held. */
  get droppedBytes(): number {
    return this.total - this.held;
  }

  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.total += chunk.length;
    if (chunk.length >= this.capacity) {
      this.chunks.length = 0;
      this.chunks.push(Buffer.from(chunk.subarray(chunk.length - this.capacity)));
      this.held = this.capacity;
      return;
    }
    this.chunks.push(chunk);
    this.held += chunk.length;
    while (this.held > this.capacity) {
      const first = this.chunks[0];
      const excess = this.held - this.capacity;
      if (first.length <= excess) {
        this.chunks.shift();
        this.held -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.held -= excess;
      }
    }
  }

  /** Up to `maxBytes` held bytes from `offset` (moved up to the oldest held byte, down to the end). */
  read(offset: number, maxBytes: number): HeldBytes {
    const start = Math.min(Math.max(offset, this.droppedBytes), this.total);
    const end = Math.min(this.total, start + maxBytes);
    const parts: Buffer[] = [];
    let pos = this.droppedBytes;
    for (const chunk of this.chunks) {
      const chunkEnd = pos + chunk.length;
      if (chunkEnd > start && pos < end) parts.push(chunk.subarray(Math.max(0, start - pos), Math.min(chunk.length, end - pos)));
      if (chunkEnd >= end) break;
      pos = chunkEnd;
    }
    return { start, bytes: Buffer.concat(parts) };
  }
}
