import { opendirSync, readdirSync, statfsSync, type Dirent, type Stats } from 'node:fs';
import { INLINE_DIRECTORY_ENTRIES, INLINE_DIRECTORY_MAX_BYTES, MAX_SIZE_CHECKED_DEVICES } from './limits.js';

/**
 * File systems (statfs `f_type`) whose directory size grows with the entries it holds, so a
 * directory of INLINE_DIRECTORY_MAX_BYTES or less has at most a few hundred names: ext2/3/4 and
 * XFS by their dirent blocks, btrfs by its names' lengths, tmpfs by a fixed size per entry.
 * Left out on purpose: overlayfs (a merged directory reports its upper layer's size, whatever the
 * lower layers hold), FUSE and network file systems (any size their server says).
 */
const SIZE_BOUNDS_ENTRIES = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994]);

/** Devices already asked, by `st_dev`: a directory's file system is looked up once, not per listing. */
const boundedDevices = new Map<number, boolean>();

function sizeBoundsEntries(path: string, dev: number): boolean {
  let bounded = boundedDevices.get(dev);
  if (bounded === undefined) {
    try {
      bounded = SIZE_BOUNDS_ENTRIES.has(statfsSync(path).type);
    } catch {
      bounded = false;
    }
    // Forgetting a device only costs one statfs more; the bound keeps mounts coming and going from growing this.
    if (boundedDevices.size >= MAX_SIZE_CHECKED_DEVICES) boundedDevices.clear();
    boundedDevices.set(dev, bounded);
  }
  return bounded;
}

/**
 * The entries of the directory at `path` (whose fstat is `st`) read on this thread, or
 * undefined when it may be large (the caller then reads it on the thread pool). A thread-pool
 * hop wakes another thread, which costs more on a virtual machine than reading a few hundred
 * cached entries. Where the file system ties a directory's size to its entries, one
 * readdirSync reads it (about half the CPU of a Dir, whose construction alone promisifies two
 * methods); elsewhere a Dir reads it and stops past INLINE_DIRECTORY_ENTRIES, so a huge
 * directory never stalls every other request.
 */
export function readSmallDirectory(path: string, st: Stats): Dirent[] | undefined {
  if (st.size > INLINE_DIRECTORY_MAX_BYTES) return undefined;
  if (sizeBoundsEntries(path, st.dev)) return readdirSync(path, { withFileTypes: true });
  const dir = opendirSync(path, { bufferSize: INLINE_DIRECTORY_ENTRIES });
  try {
    const entries: Dirent[] = [];
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
      if (entries.length === INLINE_DIRECTORY_ENTRIES) return undefined;
      entries.push(entry);
    }
    return entries;
  } finally {
    dir.closeSync();
  }
}
