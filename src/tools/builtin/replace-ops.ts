import { chmodSync, closeSync, linkSync, lstatSync, open as openFd, renameSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { chmod, link, lstat, rename, unlink, writeFile } from 'node:fs/promises';
import { INLINE_WRITE_MAX_BYTES } from '../../workspace/limits.js';

/** The file-system calls a replacement makes, all on names inside a directory already proven inside the root. */
export interface ReplaceOps {
  /** Creates `path` with `data`, refusing if anything holds the name (O_EXCL). */
  writeNew(path: string, data: Buffer, mode: number): Promise<void>;
  link(existing: string, name: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  unlink(path: string): Promise<void>;
  lstat(path: string): Promise<Stats>;
}

const pooled: ReplaceOps = {
  writeNew: (path, data, mode) => writeFile(path, data, { flag: 'wx', mode }),
  link,
  rename,
  chmod,
  unlink,
  lstat,
};

/** Creates `path` exclusively on the thread pool and hands back its descriptor. */
const createExclusive = (path: string, mode: number): Promise<number> =>
  new Promise((resolve, reject) => openFd(path, 'wx', mode, (err, fd) => (err ? reject(err) : resolve(fd))));

/** Writes `data` into a file just created, inline, and closes it whatever happens. */
function fillAndClose(fd: number, data: Buffer): void {
  try {
    writeFileSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

// `async` so a failing call rejects like its pooled twin instead of throwing where it is called.
const inline: ReplaceOps = {
  writeNew: async (path, data, mode) => fillAndClose(await createExclusive(path, mode), data),
  link: async (existing, name) => linkSync(existing, name),
  rename: async (from, to) => renameSync(from, to),
  chmod: async (path, mode) => chmodSync(path, mode),
  unlink: async (path) => unlinkSync(path),
  lstat: async (path) => lstatSync(path),
};

/**
 * The calls for writing `size` bytes. A small write is a handful of page-cache and
 * directory operations of a few microseconds each, where each thread-pool round trip
 * costs tens (a replacement makes five or six of them); a large one stays in the pool
 * so copying its bytes never holds the event loop. Creating the file stays in the pool
 * whatever its size: creating an inode can wait on the disk (0.45-0.94 ms at the median
 * on an ext4 while a database wrote beside it, where the other calls took 10-20 us),
 * and such a wait must hold up this one write, not every session on the event loop.
 */
export const replaceOps = (size: number): ReplaceOps => (size <= INLINE_WRITE_MAX_BYTES ? inline : pooled);
