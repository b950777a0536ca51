import { closeSync, openSync, readlinkSync } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';

/** Linux's O_PATH: a handle for naming and fstat only — no read access needed, a FIFO does not block. */
export const O_PATH = 0o10000000;
export const PROC_FD = '/proc/self/fd';

let procFdWorks: boolean | undefined;

export async function hasProcFd(): Promise<boolean> {
  if (procFdWorks === undefined) {
    procFdWorks = process.platform === 'linux' && (await lstat(PROC_FD).then(() => true, () => false));
  }
  return procFdWorks;
}

/**
 * realpath(3) of `path`, with its errors (ENOENT, ENOTDIR, ELOOP, EACCES…). With /proc the
 * kernel resolves the whole path in one O_PATH open and `/proc/self/fd/N` names what it
 * found: three inline calls that read no file data, where realpath(3) through the thread
 * pool reads the link of every component in turn, the workspace root's own included.
 */
export async function realPath(path: string): Promise<string> {
  if (!(await hasProcFd())) return realpath(path);
  const fd = openSync(path, O_PATH);
  try {
    return readlinkSync(`${PROC_FD}/${fd}`);
  } finally {
    closeSync(fd);
  }
}
