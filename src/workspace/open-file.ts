import { constants, fstatSync, readlinkSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { BerthError } from '../protocol/errors/index.js';
import { confine, isInside } from './paths.js';

/** A regular file of the workspace, opened for reading. The caller closes `handle`. */
export interface OpenedFile {
  readonly handle: FileHandle;
  /** fstat of the open file (the snapshot every answer describes). */
  readonly stat: Stats;
  /** Workspace-relative path of the file actually opened (a link's target, docs/client-api.md §11.1). */
  readonly rel: string;
}

/**
 * Confines `userPath`, then opens the result without following a final link
 * and without blocking on a FIFO, and refuses anything but a regular file.
 *
 * confine() proves the path was inside the root when it looked; a link swapped
 * in between that check and the open could still lead out, so on Linux the
 * opened descriptor itself is asked where it points (/proc/self/fd) and must
 * be inside the root too.
 */
export async function openConfinedFile(root: string, userPath: string): Promise<OpenedFile> {
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
  try {
    const stat = statOpen(handle);
    if (!stat.isFile()) throw new BerthError('not_regular_file', `path is not a regular file: ${target.rel}`);
    assertDescriptorInside(root, handle.fd, userPath);
    return { handle, stat, rel: target.rel };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * fstat of an open descriptor. Inline on purpose: the inode is in memory once
 * the file is open, so the call costs about a microsecond, where a round trip
 * through the thread pool costs tens — and a read makes two of them.
 */
export const statOpen = (handle: FileHandle): Stats => fstatSync(handle.fd);

/** Closes a read's descriptor without making the answer wait for it. */
export function closeSoon(handle: FileHandle): void {
  handle.close().catch(() => undefined);
}

function assertDescriptorInside(root: string, fd: number, userPath: string): void {
  if (process.platform !== 'linux') return;
  let actual: string;
  try {
    // procfs is in memory: inline like statOpen.
    actual = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return; // no procfs (a container without /proc): confine() is the whole check
  }
  if (actual.endsWith(' (deleted)')) return;
  if (!isInside(root, actual)) {
    throw new BerthError('symlink_escape', `the path led outside the workspace while being opened: ${userPath}`);
  }
}

/** Reads up to `length` bytes at `position`, looping over short reads; returns what was read. */
export async function readAt(handle: FileHandle, length: number, position: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got === length ? buf : buf.subarray(0, got);
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
