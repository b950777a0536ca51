import { BerthError, type ErrorCode } from '../protocol/errors/index.js';

/** docs/client-api.md §11.1: OS errors a workspace read can meet and the catalogue code each becomes. */
const OS_ERROR_CODES: Readonly<Record<string, ErrorCode>> = {
  ENOENT: 'path_not_found',
  EACCES: 'permission_denied',
  EPERM: 'permission_denied',
  ELOOP: 'symlink_escape',
  EISDIR: 'parse_error',
  ENOTDIR: 'parse_error',
  // Input the file system can never take: retrying cannot help (paths.ts refuses it earlier).
  ENAMETOOLONG: 'name_too_long',
  // Retryable: the same request may succeed once the file system recovers.
  ENOSPC: 'io_error',
  EIO: 'io_error',
  EBUSY: 'io_error',
  ETXTBSY: 'io_error',
  EMFILE: 'io_error',
  ENFILE: 'io_error',
  EAGAIN: 'io_error',
};

const WHAT: Partial<Record<ErrorCode, string>> = {
  path_not_found: 'path does not exist',
  permission_denied: 'permission denied',
  symlink_escape: 'too many levels of symbolic links',
  io_error: 'file system I/O failure',
  name_too_long: 'a name in the path is too long',
};

/**
 * Maps what a workspace read throws to the catalogue (docs/client-api.md §11.1): BerthErrors
 * pass through and Node system errors map by `code` (unknown codes are
 * `internal_error`). Anything else is a bug and is returned unchanged, so the
 * face logs it before answering 500 `internal_error`. `rel` is the path the
 * client named, so messages never show absolute host paths.
 */
export function mapWorkspaceError(err: unknown, rel: string): unknown {
  if (err instanceof BerthError) return err;
  const sysCode = (err as NodeJS.ErrnoException | undefined)?.code;
  if (!(err instanceof Error) || typeof sysCode !== 'string') return err;
  const code = OS_ERROR_CODES[sysCode];
  if (code === undefined) return new BerthError('internal_error', `the workspace file boundary failed (${sysCode}): ${rel}`);
  if (code === 'parse_error') {
    const hint =
      sysCode === 'ENOTDIR'
        ? 'ENOTDIR — a path component is a regular file but a directory was expected'
        : 'EISDIR — the path is a directory but a file was expected';
    return new BerthError('parse_error', `${sysCode}: ${rel}`, {}, hint);
  }
  return new BerthError(code, `${WHAT[code]}: ${rel} (${sysCode})`);
}
