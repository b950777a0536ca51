import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODULE_SOCKET_PATH_MAX_BYTES } from './limits.js';

/** Where a workspace's module socket lives, and whether the home folder was too long for it. */
export interface SocketPlace {
  readonly dir: string;
  readonly path: string;
  /** True when the path is under the OS temp dir because the home path was too long for a Unix socket. */
  readonly fallback: boolean;
}

/**
 * `$BERTH_HOME/sockets/<workspaceId>.sock` (docs/architecture.md: the daemon's home
 * folder). A Unix socket path must fit `sun_path`; when the home path is too
 * long, the socket goes to `<tmpdir>/berth-<uid>-<hash of home>/` instead, a
 * folder only this user may enter, and the daemon says so in its log.
 */
export function socketPlace(home: string, workspaceId: string): SocketPlace {
  const file = `${workspaceId}.sock`;
  const dir = join(home, 'sockets');
  const preferred = join(dir, file);
  if (Buffer.byteLength(preferred) <= MODULE_SOCKET_PATH_MAX_BYTES) return { dir, path: preferred, fallback: false };
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const short = join(tmpdir(), `berth-${uid}-${createHash('sha256').update(home).digest('hex').slice(0, 12)}`);
  const path = join(short, file);
  if (Buffer.byteLength(path) > MODULE_SOCKET_PATH_MAX_BYTES) {
    throw new Error(`no module socket path fits ${MODULE_SOCKET_PATH_MAX_BYTES} bytes (home ${home}, temp dir ${tmpdir()})`);
  }
  return { dir: short, path, fallback: true };
}

/** Makes the socket folder, only for this user (0700); refuses a link or someone else's folder in its place. */
export async function prepareSocketDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await lstat(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) {
    throw new Error(`${dir} is not a folder of this user; the module socket will not be placed there`);
  }
  await chmod(dir, 0o700);
}

/**
 * Removes a socket file a crashed daemon left behind. A file that is not a
 * socket is never removed, and a socket someone still answers on means another
 * daemon serves this home: both are refused.
 */
export async function clearStaleSocket(path: string): Promise<void> {
  const st = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (st === null) return;
  if (!st.isSocket()) throw new Error(`${path} exists and is not a socket; the module socket will not replace it`);
  const live = await new Promise<boolean>((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) throw new Error(`another process answers on ${path}; is another daemon using this home?`);
  await unlink(path);
}
