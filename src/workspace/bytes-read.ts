import { createHash } from 'node:crypto';
import { DEFAULT_FILE_BYTES_WINDOW } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { changedBetween, openConfinedRead, readAt, statOpen } from './open-file.js';

/** `GET /file/bytes` query (docs/client-api.md §11.3), validated by the face. */
export interface BytesReadOptions {
  readonly offset?: number;
  readonly maxBytes?: number;
}

/** The `WorkspaceFileBytes` answer (contract/openapi.json), in wire field order. */
export interface FileBytesWindow {
  readonly kind: 'file_bytes';
  readonly path: string;
  readonly offset: number;
  readonly sizeBytes: number;
  readonly returnedBytes: number;
  readonly truncated: boolean;
  readonly contentBase64: string;
  readonly hash?: string;
}

/**
 * Reads a raw byte window of a regular workspace file (docs/client-api.md §11.3). An offset
 * past the end returns no bytes. `hash` (SHA-256 of the whole file) is given
 * only when the window is the whole file, read from offset 0.
 */
export async function readFileBytes(root: string, userPath: string, options: BytesReadOptions): Promise<FileBytesWindow> {
  const offset = options.offset ?? 0;
  const maxBytes = options.maxBytes ?? DEFAULT_FILE_BYTES_WINDOW;
  const file = await openConfinedRead(root, userPath);
  try {
    const size = file.stat.size;
    const want = offset >= size ? 0 : Math.min(maxBytes, size - offset);
    const bytes = want === 0 ? Buffer.alloc(0) : await readAt(file.handle, want, offset);
    const whole = offset === 0 && want === size;
    // A whole-file window carries a hash, so any change voids it; a partial one tolerates appends.
    if (bytes.length !== want || changedBetween(file.stat, statOpen(file.handle), !whole)) {
      throw new BerthError('hash_mismatch', `the file changed while it was being read: ${file.rel}`, {}, 'retry the read');
    }
    return {
      kind: 'file_bytes',
      path: file.rel,
      offset,
      sizeBytes: size,
      returnedBytes: want,
      truncated: !whole,
      contentBase64: bytes.toString('base64'),
      ...(whole ? { hash: `sha256:${createHash('sha256').update(bytes).digest('hex')}` } : {}),
    };
  } finally {
    file.close();
  }
}
