import { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../store/db.js';

/**
 * One daemon per home (issue 11). A second `berth serve` on a home a live
 * daemon holds must not touch it — no store open, no start-up recovery (which
 * would mark the live daemon's running turn `daemon_lost`), no sockets — so the
 * lock is the very first thing start-up does.
 *
 * The lock is SQLite's own: an `EXCLUSIVE` transaction on a file of its own,
 * held open for the daemon's life. The operating system drops it when the
 * process ends however it ends (a SIGKILL or a crash leaves no stale lock to
 * clean up), and a second connection in the same process is refused as well.
 * Beside it, `daemon.json` says who holds the lock and where it listens, so
 * the refusal can name the running daemon.
 */
export const LOCK_FILE = 'daemon.lock';
export const HOLDER_FILE = 'daemon.json';

/** Who holds a home: its pid, and its URL once it listens. */
export interface HomeHolder {
  readonly pid: number;
  readonly url?: string;
  readonly startedAt?: number;
}

export class HomeInUseError extends Error {
  override name = 'HomeInUseError';
  constructor(
    readonly home: string,
    readonly holder: HomeHolder | null,
  ) {
    super(describeRefusal(home, holder));
  }
}

function describeRefusal(home: string, holder: HomeHolder | null): string {
  const who =
    holder === null
      ? 'another berth daemon'
      : holder.url
        ? `another berth daemon (pid ${holder.pid}) listening on ${holder.url}`
        : `another berth daemon (pid ${holder.pid}, still starting)`;
  return (
    `${who} is serving the home ${home}; nothing was changed. ` +
    'Use that daemon, stop it first, or start this one with --home DIR for a separate home.'
  );
}

export interface HomeLock {
  /** Records the URL the daemon listens on, for the refusal a second daemon gives. */
  announce(url: string): void;
  /** Lets go of the home; safe to call more than once. */
  release(): void;
}

/** Takes the home for this process, or throws HomeInUseError naming the daemon that holds it. */
export function lockHome(home: string): HomeLock {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const path = join(home, LOCK_FILE);
  // Created for this user only, like everything else in the home; SQLite would use the umask.
  closeSync(openSync(path, 'a', 0o600));
  const db = openDatabase(path);
  try {
    // No waiting: a held home is refused at once. No journal file: nothing is ever written.
    db.pragma('busy_timeout = 0');
    db.pragma('journal_mode = OFF');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new HomeInUseError(home, readHolder(home));
    throw err;
  }
  const startedAt = Date.now();
  writeHolder(home, { pid: process.pid, startedAt });
  let released = false;
  return {
    announce(url) {
      if (!released) writeHolder(home, { pid: process.pid, url, startedAt });
    },
    release() {
      if (released) return;
      released = true;
      db.close();
    },
  };
}

/** The holder a home's `daemon.json` names, or null when it cannot be read (it is being written, or was never). */
export function readHolder(home: string): HomeHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(join(home, HOLDER_FILE), 'utf8')) as Partial<HomeHolder>;
    if (typeof parsed.pid !== 'number') return null;
    return { pid: parsed.pid, ...(typeof parsed.url === 'string' ? { url: parsed.url } : {}) };
  } catch {
    return null;
  }
}

/** Written whole (a temp file renamed over it), so a reader never sees half of it. */
function writeHolder(home: string, holder: HomeHolder): void {
  const path = join(home, HOLDER_FILE);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(holder) + '\n', { mode: 0o600 });
  renameSync(temp, path);
}
