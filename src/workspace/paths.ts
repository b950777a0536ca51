import { lstatSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { MAX_NAME_BYTES, MAX_PATH_CHARS } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { realPath } from './proc-fd.js';

/** A path proven to lie inside a workspace root. */
export interface ConfinedPath {
  /** Absolute path on disk (symlinks resolved when the target exists). */
  readonly abs: string;
  /** Workspace-relative path with `/` separators; `.` for the root itself. */
  readonly rel: string;
  /** False when nothing exists at the path yet (only with `allowMissing`). */
  readonly exists: boolean;
  /** True when the path's parent directory exists (always, when the path itself does). */
  readonly parentExists: boolean;
}

export interface ConfineOptions {
  /** Accept a path whose final components do not exist yet (writes that create files). */
  readonly allowMissing?: boolean;
}

/** True when `child` is `root` or below it. Both must be absolute and normalized. */
export function isInside(root: string, child: string): boolean {
  if (child === root) return true;
  if (plainlyBelow(root, child)) return true;
  const rel = relative(root, child);
  return rel !== '' && !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel);
}

/**
 * The common case without path.relative (a few microseconds, several times per read): on
 * POSIX, `child` is `root`, a separator and plain names, with no `.` or `..` segment and no
 * empty one to normalize away. Anything else takes the full check.
 */
function plainlyBelow(root: string, child: string): boolean {
  return (
    sep === '/' &&
    child.length > root.length + 1 &&
    child.charCodeAt(root.length) === 0x2f &&
    child.startsWith(root) &&
    !child.includes('/.', root.length) &&
    !child.includes('//', root.length)
  );
}

export function toRel(root: string, abs: string): string {
  const rel = relative(root, abs);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/**
 * Resolves a client- or agent-supplied path inside `root` (a canonical, realpath'd root).
 *
 * Order matters: first a lexical check (relative and absolute forms, `..`), then
 * `realpath`, so that a symlink anywhere along the way cannot lead out
 * (docs/architecture.md, Security rules: "every path resolves inside the root after realpath,
 * symlinks never lead out"). Refusals: `path_outside_workspace` for lexical
 * escapes, `symlink_escape` for escapes through links (and link loops),
 * `path_not_found` when the path is missing and `allowMissing` is off.
 */
export async function confine(root: string, userPath: string, options: ConfineOptions = {}): Promise<ConfinedPath> {
  const lexical = lexicalInside(root, userPath);
  let real: string;
  try {
    real = await realPath(lexical);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new BerthError('symlink_escape', `symlink loop at ${userPath}`);
    if (code === 'EACCES' || code === 'EPERM') throw new BerthError('permission_denied', `permission denied: ${userPath}`);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    return confineMissing(root, lexical, userPath, options);
  }
  if (!isInside(root, real)) {
    throw new BerthError('symlink_escape', `a symlink leads outside the workspace: ${userPath}`);
  }
  return { abs: real, rel: toRel(root, real), exists: true, parentExists: true };
}

/**
 * The checks that need no system call: `userPath` is given, well-formed, and
 * names a place inside `root` before any link is followed. Returns the
 * absolute lexical path (`..` already resolved).
 */
export function lexicalInside(root: string, userPath: string): string {
  if (typeof userPath !== 'string' || userPath.length === 0) {
    throw new BerthError('parse_error', '`path` is required');
  }
  if (userPath.length > MAX_PATH_CHARS || userPath.includes('\0')) {
    throw new BerthError('path_outside_workspace', 'the path is not a valid workspace path');
  }
  refuseLongName(userPath);
  const lexical = resolve(root, userPath);
  if (!isInside(root, lexical)) {
    throw new BerthError('path_outside_workspace', `path is outside the workspace: ${userPath}`);
  }
  return lexical;
}

/** A name no file system here can hold is the client's mistake, refused before any system call. */
function refuseLongName(userPath: string): void {
  for (const name of userPath.split(/[\\/]/)) {
    if (name.length > MAX_NAME_BYTES / 4 && Buffer.byteLength(name) > MAX_NAME_BYTES) {
      throw new BerthError('name_too_long', `a name in the path is longer than ${MAX_NAME_BYTES} bytes`, { limit: MAX_NAME_BYTES });
    }
  }
}

/** The path does not exist: its deepest existing ancestor must still be inside the root. */
async function confineMissing(
  root: string,
  lexical: string,
  userPath: string,
  options: ConfineOptions,
): Promise<ConfinedPath> {
  await refuseDanglingLink(lexical, userPath);
  let probe = dirname(lexical);
  let realAncestor: string | undefined;
  while (isInside(root, probe)) {
    try {
      realAncestor = await realPath(probe);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new BerthError('symlink_escape', `symlink loop at ${userPath}`);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      await refuseDanglingLink(probe, userPath);
      probe = dirname(probe);
    }
  }
  if (realAncestor === undefined || !isInside(root, realAncestor)) {
    throw new BerthError('symlink_escape', `a symlink leads outside the workspace: ${userPath}`);
  }
  if (!options.allowMissing) {
    throw new BerthError('path_not_found', `path does not exist: ${userPath}`);
  }
  const abs = resolve(realAncestor, relative(probe, lexical));
  return { abs, rel: toRel(root, abs), exists: false, parentExists: probe === dirname(lexical) };
}

/**
 * realpath failed with ENOENT, yet something may exist here: a symlink whose target is
 * missing. Writing through it would create the target wherever it points, so refuse.
 */
async function refuseDanglingLink(path: string, userPath: string): Promise<void> {
  try {
    // Inline: an lstat reads only the name's inode, like the O_PATH open that resolved the path.
    lstatSync(path);
  } catch {
    return;
  }
  throw new BerthError('symlink_escape', `a dangling symlink is on the way to ${userPath}`);
}
