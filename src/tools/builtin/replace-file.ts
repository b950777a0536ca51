import { randomUUID } from 'node:crypto';
import { chmod, link, lstat, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MAX_HASHED_FILE_BYTES } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import { mapWorkspaceError } from '../../workspace/fs-errors.js';
import { sha256File, staleHash } from './workspace-files.js';

export interface ReplaceRequest {
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
 * Creating uses link(2), which fails atomically when the name exists, so a
 * create can never clobber. Replacing checks the hash, then rename(2)s: a
 * writer that changes the file in the instant between that check and the
 * rename loses its change — the one window left, as small as a local
 * filesystem allows without locks the other writers do not take.
 */
export async function replaceFile(req: ReplaceRequest): Promise<void> {
  const temp = join(dirname(req.abs), `.${basename(req.abs)}.berth-${randomUUID()}.tmp`);
  try {
    const mode = req.expectedSha256 === null ? 0o666 : (await stat(req.abs)).mode & 0o7777;
    await writeFile(temp, req.content, { flag: 'wx', mode });
    if (req.expectedSha256 === null) {
      await linkIntoPlace(temp, req.abs, req.rel);
    } else {
      // Keep the replaced file's permissions exactly (the umask trimmed them at creation).
      await chmod(temp, mode);
      const current = await sha256File(req.abs, req.rel, MAX_HASHED_FILE_BYTES).catch((err: unknown) => {
        if (err instanceof BerthError && err.code === 'path_not_found') throw staleHash(req.rel);
        throw err;
      });
      if (current !== req.expectedSha256) throw staleHash(req.rel);
      await rename(temp, req.abs);
    }
  } catch (err) {
    if (err instanceof BerthError) throw err;
    throw mapWorkspaceError(err, req.rel);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Gives the temp file the target name only if nothing holds that name yet. */
async function linkIntoPlace(temp: string, abs: string, rel: string): Promise<void> {
  try {
    await link(temp, abs);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw fileExists(rel);
    // Filesystems without hard links: fall back to a checked rename (a narrow window remains).
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
  }
  const taken = await lstat(abs).then(
    () => true,
    () => false,
  );
  if (taken) throw fileExists(rel);
  await rename(temp, abs);
}

export function fileExists(rel: string): BerthError {
  return new BerthError(
    'file_exists',
    `${rel} already exists`,
    { path: rel },
    'read it with workspace_read and pass its sha256 to replace it',
  );
}
