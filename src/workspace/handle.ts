import { closeSync, constants, fstatSync, openSync, readlinkSync, type Stats } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import { BerthError } from '../protocol/errors/index.js';
import { confine, isInside, lexicalInside } from './paths.js';
import { hasProcFd, O_PATH, PROC_FD } from './proc-fd.js';

/**
 * A confined path opened, then proven to still be inside the workspace.
 *
 * `confine()` proves a path string is inside the root at one instant; a
 * symlink swapped into the path a moment later (an agent's command can do it
 * in a loop) would send a later `readdir`, `lstat` or `rename` of the same
 * string outside (issue 16, finding 5). So the object is opened once, the
 * kernel is asked where that open object really is (`/proc/self/fd/N`), and
 * everything after goes through `via` — a path that resolves to the opened
 * object itself, whatever happens to the names on the way to it since.
 */
export interface VerifiedHandle {
  /** Where the opened object really is: canonical, inside the root. */
  readonly real: string;
  /** A path to the opened object itself (`/proc/self/fd/N` on Linux); names under it resolve inside it. */
  readonly via: string;
  stat(): Promise<Stats>;
  close(): Promise<void>;
}

/**
 * Opens `abs` (a path `confine()` returned) without following a final link,
 * and refuses with `symlink_escape` if the opened object lies outside `root`.
 * With `directory`, anything but a directory is refused (ENOTDIR).
 */
export async function openVerified(root: string, abs: string, options: { directory?: boolean } = {}): Promise<VerifiedHandle> {
  const linux = await hasProcFd();
  const flags =
    (linux ? O_PATH : constants.O_RDONLY | constants.O_NONBLOCK) |
    constants.O_NOFOLLOW |
    (options.directory ? constants.O_DIRECTORY : 0);
  let fh: FileHandle;
  try {
    // Inline on Linux, like openInside: an O_PATH open only resolves names.
    if (linux) return procHandle(root, openSync(abs, flags));
    fh = await open(abs, flags);
  } catch (err) {
    // A final component swapped for a link since it was confined.
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw escape();
    throw err;
  }
  try {
    const real = await stillHere(abs, fh);
    if (!isInside(root, real)) throw escape();
    return { real, via: abs, stat: () => fh.stat(), close: () => fh.close() };
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Opens what `userPath` names (links followed) and only then confines it: the
 * kernel says where the opened object is (`/proc/self/fd/N`), and that must be
 * inside `root`. One open and one in-memory readlink replace `confine()`'s
 * realpath plus `openVerified()`'s open and check, with the same guarantee
 * (what is used is the object proven inside, whatever the names do later).
 * O_PATH opens nothing for reading, so a link to a device outside the root
 * is never really opened. Any failure to open is handed to `confine()`, which
 * names the refusal as before (link loop, dangling link, escape on the way,
 * missing path). Without /proc it is `confine()` then `openVerified()`.
 */
export async function openInside(root: string, userPath: string, options: { directory?: boolean } = {}): Promise<VerifiedHandle> {
  const lexical = lexicalInside(root, userPath);
  if (!(await hasProcFd())) return openVerified(root, (await confine(root, userPath)).abs, options);
  let fd: number;
  try {
    // Inline: an O_PATH open reads no data, only resolves names, and the request checks the
    // same directories' ignore files inline right after (ignore.ts); through the thread pool
    // it cost a hop of its own, about as much as the rest of a small read.
    fd = openSync(lexical, O_PATH | (options.directory ? constants.O_DIRECTORY : 0));
  } catch (err) {
    await confine(root, userPath);
    throw err;
  }
  return procHandle(root, fd);
}

/** The handle of an O_PATH descriptor, once /proc says the object lies inside `root`; the descriptor is closed if not. */
function procHandle(root: string, fd: number): VerifiedHandle {
  try {
    const via = `${PROC_FD}/${fd}`;
    // procfs is in memory: inline, like the fstat of an open file.
    const real = readlinkSync(via);
    if (!isInside(root, real)) throw escape();
    return { real, via, stat: async () => fstatSync(fd), close: async () => closeSync(fd) };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * Without /proc: the open object must be the very one the path names now, and
 * that path must resolve inside the root (a directory cannot be hard-linked,
 * so for directories this proves where the handle is; later calls by path keep
 * a narrow window that only /proc closes).
 */
async function stillHere(abs: string, fh: FileHandle): Promise<string> {
  const [opened, real] = await Promise.all([fh.stat(), realpath(abs)]);
  const named = await lstat(real);
  if (opened.dev !== named.dev || opened.ino !== named.ino) throw escape();
  return real;
}

function escape(): BerthError {
  return new BerthError('symlink_escape', 'a symlink leads outside the workspace');
}
