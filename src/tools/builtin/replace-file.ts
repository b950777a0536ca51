import { randomUUID } from 'node:crypto';
import { closeSync, constants, openSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MAX_HASHED_FILE_BYTES } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import { mapWorkspaceError } from '../../workspace/fs-errors.js';
import { openVerified, type VerifiedHandle } from '../../workspace/handle.js';
import { replaceOps, type ReplaceOps } from './replace-ops.js';
import { sha256Open, staleHash } from './workspace-files.js';

export interface ReplaceRequest {
  /** The workspace root the file must stay inside. */
  readonly root: string;
  /** Confined absolute path of the file (its parent directory exists). */
  readonly abs: string;
  /** Workspace-relative path, for messages. */
  readonly rel: string;
  readonly content: Buffer;
  /** `null`: create, refusing if anything is there. Otherwise the SHA-256 the current file must still have. */
  readonly expectedSha256: string | null;
}

/**
 * Writes a file so that a reader never sees half of it and a concurrent change
 * refuses the edit (docs/gateway.md `workspace_write`). The content goes to a temp
 * file beside the target; the revision is checked as late as possible, right
 * before the temp file takes the target's place.
 *
 * Every step works inside the parent directory as opened and proven inside
 * the root (workspace/handle.ts), never through the path string again: a
 * symlink swapped into the path meanwhile cannot send the temp file, the link
 * or the rename outside (issue 16, finding 5). The target name itself is
 * never followed: a link in its place is refused, not written through.
 *
 * Creating uses link(2), which fails atomically when the name exists, so a
 * create can never clobber. Replacing checks the hash, then rename(2)s: a
 * writer that changes the file in the instant between that check and the
 * rename loses its change — the one window left, as small as a local
 * filesystem allows without locks the other writers do not take.
 */
export async function replaceFile(req: ReplaceRequest): Promise<void> {
  let dir: VerifiedHandle;
  try {
    dir = await openVerified(req.root, dirname(req.abs), { directory: true });
  } catch (err) {
    if (err instanceof BerthError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') throw parentNotDirectory(req.rel);
    throw mapWorkspaceError(err, req.rel);
  }
  const name = basename(req.abs);
  const target = join(dir.via, name);
  const temp = join(dir.via, `.${name}.berth-${randomUUID()}.tmp`);
  const fs = replaceOps(req.content.length);
  try {
    const mode = req.expectedSha256 === null ? 0o666 : (await currentFile(fs, target, req.rel)).mode & 0o7777;
    await fs.writeNew(temp, req.content, mode);
    if (req.expectedSha256 === null) {
      await linkIntoPlace(fs, temp, target, req.rel);
    } else {
      // Keep the replaced file's permissions exactly (the umask trimmed them at creation).
      await fs.chmod(temp, mode);
      const current = await hashWithoutFollowing(target, req.rel).catch((err: unknown) => {
        if (err instanceof BerthError && err.code === 'path_not_found') throw staleHash(req.rel);
        throw err;
      });
      if (current !== req.expectedSha256) throw staleHash(req.rel);
      await fs.rename(temp, target);
    }
  } catch (err) {
    if (err instanceof BerthError) throw err;
    throw mapWorkspaceError(err, req.rel);
  } finally {
    await fs.unlink(temp).catch(() => undefined);
    await dir.close();
  }
}

/** The file being replaced, not followed: a link in its place is refused. */
async function currentFile(fs: ReplaceOps, target: string, rel: string): Promise<Stats> {
  const st = await fs.lstat(target);
  if (st.isSymbolicLink()) throw new BerthError('symlink_escape', `${rel} became a symlink`);
  return st;
}

/** SHA-256 of the file at `target`, opened (inline: one name in a directory already open) without following a link. */
async function hashWithoutFollowing(target: string, rel: string): Promise<string> {
  let fd: number;
  try {
    fd = openSync(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new BerthError('symlink_escape', `${rel} became a symlink`);
    throw mapWorkspaceError(err, rel);
  }
  try {
    return await sha256Open(fd, rel, MAX_HASHED_FILE_BYTES);
  } finally {
    closeSync(fd);
  }
}

/** Gives the temp file the target name only if nothing holds that name yet. */
async function linkIntoPlace(fs: ReplaceOps, temp: string, abs: string, rel: string): Promise<void> {
  try {
    await fs.link(temp, abs);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw fileExists(rel);
    // Filesystems without hard links: fall back to a checked rename (a narrow window remains).
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
  }
  const taken = await fs.lstat(abs).then(
    () => true,
    () => false,
  );
  if (taken) throw fileExists(rel);
  await fs.rename(temp, abs);
}

export function fileExists(rel: string): BerthError {
  return new BerthError(
    'file_exists',
    `${rel} already exists`,
    { path: rel },
    'read it with workspace_read and pass its sha256 to replace it',
  );
}

export function parentNotDirectory(rel: string): BerthError {
  return new BerthError('not_regular_file', `a parent of ${rel} is a file, not a directory`);
}
