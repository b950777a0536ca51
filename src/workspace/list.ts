import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { MAX_LIST_ENTRIES } from './limits.js';
import { openInside, type VerifiedHandle } from './handle.js';
import { loadIgnoreRules, type IgnoreRules } from './ignore.js';
import { toRel } from './paths.js';
import { readSmallDirectory } from './small-directory.js';
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
 * entries in the order the read gives them (readdir sorts by name), kinds not resolved (a link is `symlink`),
 * ignored entries hidden unless asked for. Everything inside an ignored
 * directory counts as ignored. A path that is not a directory is ENOTDIR
 * (400 `parse_error`). The directory read is the one opened and proven
 * inside the root, not whatever the path names by then (a swapped link).
 */
export async function listDirectory(root: string, userPath: string, options: ListOptions): Promise<DirectoryList> {
  const handle = await openInside(root, userPath, { directory: true });
  const target = { rel: toRel(root, handle.real) };
  const dirRel = target.rel === '.' ? '' : target.rel;
  const { dirents, ignore } = await readWithRules(handle, root, dirRel);
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

/**
 * The opened directory's entries and the ignore rules that apply to them; the handle is closed
 * whatever happens. A small directory is read inline (small-directory.ts) and closed at once;
 * a large one is read by the thread pool while this thread checks the ignore files (inline lstats).
 */
async function readWithRules(handle: VerifiedHandle, root: string, dirRel: string): Promise<{ dirents: Dirent[]; ignore: IgnoreRules }> {
  let small: Dirent[] | undefined;
  try {
    small = readSmallDirectory(handle.via, await handle.stat());
  } catch (err) {
    await handle.close();
    throw err;
  }
  if (small !== undefined) {
    await handle.close();
    const names = { has: (name: string) => small.some((d) => d.name === name) };
    return { dirents: small, ignore: await loadIgnoreRules(root, { dirRel, names }) };
  }
  const [listed, rules] = await Promise.allSettled([readdir(handle.via, { withFileTypes: true }), preparedRules(root, dirRel)]);
  // Only now, whether the read failed or not: the pool reads through the descriptor's /proc path.
  await handle.close();
  if (listed.status === 'rejected') throw listed.reason;
  if (rules.status === 'rejected') throw rules.reason;
  return { dirents: listed.value, ignore: rules.value };
}

async function preparedRules(root: string, dirRel: string): Promise<IgnoreRules> {
  const ignore = await loadIgnoreRules(root);
  await ignore.prepare(dirRel);
  return ignore;
}
