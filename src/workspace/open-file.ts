import { closeSync, constants, fstatSync, openSync, read as readFd, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { BerthError } from '../protocol/errors/index.js';
import { hasProcFd, openInside } from './handle.js';
import { confine, toRel } from './paths.js';

/** A regular file of the workspace, opened for reading. The caller closes `handle`. */
export interface OpenedFile {
  readonly handle: FileHandle;
  /** fstat of the open file (the snapshot every answer describes). */
  readonly stat: Stats;
  /** Workspace-relative path of the file actually opened (a link's target, docs/client-api.md §11.1). */
  readonly rel: string;
}

/**
 * Opens `userPath` inside `root` for reading and refuses anything but a
 * regular file. On Linux the object is first opened by name only (O_PATH,
 * handle.ts `openInside`), proven inside the root and a regular file, and
 * then reopened for reading through `/proc/self/fd/N` — the very object
 * checked, so a link swapped into the path meanwhile cannot lead out, and a
 * device or FIFO is never opened for reading.
 */
export async function openConfinedFile(root: string, userPath: string): Promise<OpenedFile> {
  if (!(await hasProcFd())) return openConfinedByName(root, userPath);
  return reopenInside(root, userPath, (via) => open(via, READ_FLAGS));
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** What reading a window needs of an open file: its descriptor (for fstat) and positional reads; a FileHandle has both. */
export interface PositionalFile {
  readonly fd: number;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/** A file the read routes opened: read through the thread pool, closed by `close()`. */
export interface OpenedForRead {
  readonly handle: PositionalFile;
  readonly stat: Stats;
  readonly rel: string;
  close(): void;
}

/**
 * openConfinedFile for a read route: the same checks, but the checked object is
 * reopened inline and kept as a bare descriptor. Reopening `/proc/self/fd/N`
 * follows no names (the object is already resolved) and closing a descriptor
 * nothing was written through flushes nothing, so neither needs a thread-pool
 * hop; only the reads of the file's bytes go through the pool.
 */
export async function openConfinedRead(root: string, userPath: string): Promise<OpenedForRead> {
  if (!(await hasProcFd())) {
    const { handle, stat, rel } = await openConfinedByName(root, userPath);
    return { handle, stat, rel, close: () => closeSoon(handle) };
  }
  const { handle: fd, stat, rel } = await reopenInside(root, userPath, (via) => openSync(via, READ_FLAGS));
  const read = (buffer: Buffer, offset: number, length: number, position: number) =>
    new Promise<{ bytesRead: number }>((resolve, reject) =>
      readFd(fd, buffer, offset, length, position, (err, bytesRead) => (err ? reject(err) : resolve({ bytesRead }))),
    );
  return { handle: { fd, read }, stat, rel, close: () => closeSync(fd) };
}

/**
 * Opens `userPath` by name only (O_PATH, handle.ts `openInside`), proves it a
 * regular file, and reopens that very object for reading with `reopen`.
 */
async function reopenInside<T extends number | FileHandle>(
  root: string,
  userPath: string,
  reopen: (via: string) => T | Promise<T>,
): Promise<{ handle: T; stat: Stats; rel: string }> {
  const target = await openInside(root, userPath);
  try {
    const rel = toRel(root, target.real);
    if (!(await target.stat()).isFile()) throw new BerthError('not_regular_file', `path is not a regular file: ${rel}`);
    const handle = await reopen(target.via);
    return { handle, stat: fstatSync(typeof handle === 'number' ? handle : handle.fd), rel };
  } finally {
    await target.close();
  }
}

/**
 * Without /proc: confine the name, open it without following a final link and
 * without blocking on a FIFO; confine() is then the whole check.
 */
async function openConfinedByName(root: string, userPath: string): Promise<OpenedFile> {
  const target = await confine(root, userPath);
  let handle: FileHandle;
  try {
    handle = await open(target.abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
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
export function closeSoon(handle: FileHandle): void {
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
