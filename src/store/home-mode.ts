import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';

/**
 * The home holds the store (transcripts, the transcript signing secret, token
 * hashes), the model config (API keys) and the module sockets: only its user
 * may enter it (issue 16). Whatever existed before, the home ends 0700 and the
 * store's files 0600; a home that another user owns, or that group or others
 * may write, is refused rather than repaired — someone else may already have
 * put a file or a link of their choosing in it.
 */
export const HOME_MODE = 0o700;
export const STORE_FILE_MODE = 0o600;

export class UnsafeHomeError extends Error {
  override name = 'UnsafeHomeError';
}

/** Creates the home 0700, or checks and tightens an existing one; throws UnsafeHomeError for a home others control. */
export function secureHome(home: string): void {
  mkdirSync(home, { recursive: true, mode: HOME_MODE });
  const st = statSync(home);
  if (!st.isDirectory()) throw new UnsafeHomeError(`the Berth home ${home} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new UnsafeHomeError(`the Berth home ${home} belongs to uid ${st.uid}, not to this user (uid ${uid}); refusing to keep secrets in it`);
  }
  if ((st.mode & 0o022) !== 0) {
    throw new UnsafeHomeError(
      `the Berth home ${home} is writable by others (mode ${(st.mode & 0o777).toString(8)}); refusing to start. ` +
        `Check what is in it, then run: chmod 700 ${home}`,
    );
  }
  if ((st.mode & 0o777) !== HOME_MODE) chmodSync(home, HOME_MODE);
}

/** Creates `path` 0600 if missing (before SQLite does, with the umask's mode) and tightens it if it exists. */
export function privateFile(path: string): void {
  closeSync(openSync(path, 'a', STORE_FILE_MODE));
  chmodSync(path, STORE_FILE_MODE);
}

/** Tightens the files that exist among `paths` (SQLite's -wal and -shm, created later with the database's mode). */
export function tightenExisting(paths: readonly string[]): void {
  for (const path of paths) {
    try {
      chmodSync(path, STORE_FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}
