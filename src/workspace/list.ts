import { opendirSync, type Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { INLINE_DIRECTORY_ENTRIES, INLINE_DIRECTORY_MAX_BYTES, MAX_LIST_ENTRIES } from './limits.js';
import { openInside } from './handle.js';
import { loadIgnoreRules, type IgnoreRules } from './ignore.js';
import { toRel } from './paths.js';
import { kindOf, type EntryKind } from './stat.js';

export interface ListOptions {
  /** Show entries the ignore rules hide (docs/client-api.md §11.1: `includeIgnored=1|true`). */
  readonly includeIgnored: boolean;
}

export interface ListEntry {
  readonly name: string;
  readonly kind: EntryKind;
  readonly ignored: boolean;
}

/** The `WorkspaceList` answer (contract/openapi.json), in wire field order. */
export interface DirectoryList {
  readonly kind: 'list';
  readonly path: string;
  readonly entries: ListEntry[];
  readonly truncated: boolean;
  readonly matchedIgnore: null;
}

/**
 * Lists one workspace directory (docs/client-api.md §11.5): at most MAX_LIST_ENTRIES
 * entries in directory order, kinds not resolved (a link is `symlink`),
 * ignored entries hidden unless asked for. Everything inside an ignored
 * directory counts as ignored. A path that is not a directory is ENOTDIR
 * (400 `parse_error`). The directory read is the one opened and proven
 * inside the root, not whatever the path names by then (a swapped link).
 */
export async function listDirectory(root: string, userPath: string, options: ListOptions): Promise<DirectoryList> {
  const handle = await openInside(root, userPath, { directory: true });
  const target = { rel: toRel(root, handle.real) };
  const dirRel = target.rel === '.' ? '' : target.rel;
  // A large directory is read by the thread pool while this thread checks its ignore files
  // (inline lstats); a small one is read inline (see readSmallDirectory).
  const reading = handle.stat().then((st) => {
    const small = st.size <= INLINE_DIRECTORY_MAX_BYTES ? readSmallDirectory(handle.via) : undefined;
    return small ?? readdir(handle.via, { withFileTypes: true });
  });
  const [listed, rules] = await Promise.allSettled([reading, preparedRules(root, dirRel)]);
  // Only now, whether the read failed or not: the read goes through the descriptor's /proc path.
  await handle.close();
  if (listed.status === 'rejected') throw listed.reason;
  if (rules.status === 'rejected') throw rules.reason;
  const dirents = listed.value;
  const ignore = rules.value;
  const insideIgnored = dirRel !== '' && ignore.match(dirRel, true) !== null;
  const ignores = insideIgnored ? () => true : ignore.entryTester(dirRel);
  const entries: ListEntry[] = [];
  let truncated = false;
  for (const d of dirents) {
    const ignored = ignores(d.name, d.isDirectory());
    if (ignored && !options.includeIgnored) continue;
    if (entries.length === MAX_LIST_ENTRIES) {
      truncated = true;
      break;
    }
    entries.push({ name: d.name, kind: kindOf(d), ignored });
  }
  return { kind: 'list', path: target.rel, entries, truncated, matchedIgnore: null };
}

async function preparedRules(root: string, dirRel: string): Promise<IgnoreRules> {
  const ignore = await loadIgnoreRules(root);
  await ignore.prepare(dirRel);
  return ignore;
}

/**
 * The directory's entries read on this thread, or undefined when it has more
 * than INLINE_DIRECTORY_ENTRIES (the caller then reads it on the thread pool).
 * A thread-pool hop wakes another thread, which costs more on a virtual machine
 * than reading a few hundred cached entries; the bound keeps a huge directory
 * from stalling every other request.
 */
function readSmallDirectory(path: string): Dirent[] | undefined {
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
