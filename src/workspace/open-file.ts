import { closeSync, constants, fstatSync, openSync, read as readFd, readSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { BerthError } from '../protocol/errors/index.js';
import { openInside } from './handle.js';
import { hasProcFd } from './proc-fd.js';
import { INLINE_READ_MAX_BYTES } from './limits.js';
import { confine, toRel } from './paths.js';

/** A file opened by name where /proc is missing. The caller closes `handle`. */
interface OpenedByName {
  readonly handle: FileHandle;
  /** fstat of the open file (the snapshot every answer describes). */
  readonly stat: Stats;
  /** Workspace-relative path of the file actually opened (a link's target, docs/client-api.md §11.1). */
  readonly rel: string;
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** What reading a window needs of an open file: its descriptor (for fstat) and positional reads; a FileHandle has both. */
export interface PositionalFile {
  readonly fd: number;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/** A file opened for reading, closed by `close()`. */
export interface OpenedForRead {
  readonly handle: PositionalFile;
  readonly stat: Stats;
  readonly rel: string;
  close(): void;
}

/**
 * Opens `userPath` inside `root` for reading and refuses anything but a
 * regular file. On Linux the object is first opened by name only (O_PATH,
 * handle.ts `openInside`), proven inside the root and a regular file, and
 * then reopened for reading through `/proc/self/fd/N` — the very object
 * checked, so a link swapped into the path meanwhile cannot lead out, and a
 * device or FIFO is never opened for reading.
 *
 * The reopen is inline and the file kept as a bare descriptor: reopening
 * `/proc/self/fd/N` follows no names (the object is already resolved) and
 * closing a descriptor nothing was written through flushes nothing, so neither
 * needs a thread-pool hop. The bytes of a small file (INLINE_READ_MAX_BYTES by
 * the fstat taken at open) are read inline too; a larger file's go through the pool.
 */
export async function openConfinedRead(root: string, userPath: string): Promise<OpenedForRead> {
  if (!(await hasProcFd())) {
    const { handle, stat, rel } = await openConfinedByName(root, userPath);
    return { handle, stat, rel, close: () => closeSoon(handle) };
  }
  const { fd, stat, rel } = await reopenInside(root, userPath);
  const inline = stat.size <= INLINE_READ_MAX_BYTES;
  const read = (buffer: Buffer, offset: number, length: number, position: number) => {
    // Only reads that start within the size fstat saw: a small file that grew since is read on through the pool.
    if (inline && length <= INLINE_READ_MAX_BYTES && position <= stat.size) return readInline(fd, buffer, offset, length, position);
    return new Promise<{ bytesRead: number }>((resolve, reject) =>
      readFd(fd, buffer, offset, length, position, (err, bytesRead) => (err ? reject(err) : resolve({ bytesRead }))),
    );
  };
  return { handle: { fd, read }, stat, rel, close: () => closeSync(fd) };
}

function readInline(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
  try {
    return Promise.resolve({ bytesRead: readSync(fd, buffer, offset, length, position) });
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

/** Opens `userPath` by name only (O_PATH, handle.ts `openInside`), proves it a regular file, and reopens that very object for reading. */
async function reopenInside(root: string, userPath: string): Promise<{ fd: number; stat: Stats; rel: string }> {
  const target = await openInside(root, userPath);
  try {
    const rel = toRel(root, target.real);
    // The O_PATH descriptor and the reopened one are the same inode: its fstat is the snapshot.
    const stat = await target.stat();
    if (!stat.isFile()) throw new BerthError('not_regular_file', `path is not a regular file: ${rel}`);
    return { fd: openSync(target.via, READ_FLAGS), stat, rel };
  } finally {
    await target.close();
  }
}

/**
 * Without /proc: confine the name, open it without following a final link and
 * without blocking on a FIFO; confine() is then the whole check.
 */
async function openConfinedByName(root: string, userPath: string): Promise<OpenedByName> {
  const target = await confine(root, userPath);
  let handle: FileHandle;
  try {
    handle = await open(target.abs, READ_FLAGS | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      throw new BerthError('symlink_escape', `the path changed into a symlink while being opened: ${userPath}`);
    }
    // A socket (ENXIO) or device that refuses to open is not a file to read.
    if (code === 'ENXIO' || code === 'ENODEV') throw new BerthError('not_regular_file', `path is not a regular file: ${target.rel}`);
    throw err;
  }
  const stat = statOpen(handle);
  if (!stat.isFile()) {
    await handle.close();
    throw new BerthError('not_regular_file', `path is not a regular file: ${target.rel}`);
  }
  return { handle, stat, rel: target.rel };
}

/**
 * fstat of an open descriptor. Inline on purpose: the inode is in memory once
 * the file is open, so the call costs about a microsecond, where a round trip
 * through the thread pool costs tens — and a read makes two of them.
 */
export const statOpen = (handle: Pick<PositionalFile, 'fd'>): Stats => fstatSync(handle.fd);

/** Closes a read's descriptor without making the answer wait for it. */
function closeSoon(handle: FileHandle): void {
  handle.close().catch(() => undefined);
}

/**
 * Reads up to `length` bytes at `position`; returns what was read. Only regular files are opened
 * (see above), and a regular file's read comes back short only at its end: asking again would
 * cost a thread-pool round trip to learn nothing.
 */
export async function readAt(handle: PositionalFile, length: number, position: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  const { bytesRead } = length === 0 ? { bytesRead: 0 } : await handle.read(buf, 0, length, position);
  return bytesRead === length ? buf : buf.subarray(0, bytesRead);
}

/**
 * Whether the file changed between two fstats of one open descriptor.
 * `allowGrowth`: appends are fine (a window of a growing log stays valid);
 * a same-size change still counts, told by mtime or ctime.
 */
export function changedBetween(before: Stats, after: Stats, allowGrowth: boolean): boolean {
  if (after.size < before.size) return true;
  if (after.size > before.size) return !allowGrowth;
  return after.mtimeMs !== before.mtimeMs || after.ctimeMs !== before.ctimeMs;
}
