import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, read, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { BerthError } from '../../protocol/errors/index.js';
import { mapWorkspaceError } from '../../workspace/fs-errors.js';
import { INLINE_READ_MAX_BYTES, TEXT_READ_CHUNK_BYTES } from '../../workspace/limits.js';
import { openConfinedRead, readAt, type OpenedForRead } from '../../workspace/open-file.js';
import { confine, type ConfinedPath, type ConfineOptions } from '../../workspace/paths.js';
import type { LocalWorkspace } from '../../workspace/types.js';
import type { ToolContext } from '../types.js';

/**
 * The workspace a local tool works on. These tools read the disk of this
 * machine; a remote workspace's calls travel the gateway channel (docs/gateway.md)
 * and never reach them, so meeting one here is a wiring error, refused whole.
 */
export function localWorkspaceOf(ctx: ToolContext): LocalWorkspace {
  if (ctx.workspace.kind !== 'local') {
    throw new BerthError('tool_unavailable', 'this tool runs on local workspaces only');
  }
  return ctx.workspace;
}

/** True for `.git` itself and anything below a `.git` segment (repository internals, submodules included). */
export function isGitInternal(rel: string): boolean {
  return rel.split('/').includes('.git');
}

/**
 * Confines an agent-supplied path (docs/architecture.md, Security rules) and keeps the
 * tools out of `.git`: its internals are not project files, and writing there
 * (hooks, config) would run code outside any command the owner approved.
 */
export async function confineToolPath(
  ws: LocalWorkspace,
  path: string,
  options: ConfineOptions = {},
): Promise<ConfinedPath> {
  const confined = await confine(ws.root, path, options);
  if (isGitInternal(confined.rel)) {
    throw new BerthError('permission_denied', `git internals are not workspace files: ${confined.rel}`);
  }
  return confined;
}

/**
 * Opens a regular file for reading through the hardened open of the read
 * routes (no final link followed, no FIFO blocking, the descriptor checked to
 * be inside the root), and keeps `.git` out like confineToolPath. The caller
 * closes `handle`.
 */
export async function openToolFile(ws: LocalWorkspace, path: string): Promise<OpenedForRead> {
  const opened = await openConfinedRead(ws.root, path).catch((err: unknown) => {
    throw mapWorkspaceError(err, path);
  });
  if (isGitInternal(opened.rel)) {
    opened.close();
    throw new BerthError('permission_denied', `git internals are not workspace files: ${opened.rel}`);
  }
  return opened;
}

/** A whole file read into memory, with where it is. */
export interface WholeFile {
  readonly abs: string;
  readonly rel: string;
  readonly bytes: Buffer;
}

/** Reads a whole regular file of at most `maxBytes` (larger: `file_too_large`, nothing read). */
export async function readWholeToolFile(ws: LocalWorkspace, path: string, maxBytes: number, signal: AbortSignal): Promise<WholeFile> {
  const { handle, stat: st, rel, close } = await openToolFile(ws, path);
  try {
    if (st.size > maxBytes) {
      throw new BerthError('file_too_large', `${rel} is larger than ${maxBytes} bytes`, { limit: maxBytes });
    }
    signal.throwIfAborted();
    // The file as its fstat found it: bytes appended since are not part of this read.
    const bytes = await readAt(handle, st.size, 0).catch((err: unknown) => {
      throw mapWorkspaceError(err, rel);
    });
    signal.throwIfAborted();
    return { abs: resolve(ws.root, rel), rel, bytes };
  } finally {
    close();
  }
}

/** Stats a confined path and insists on a regular file. */
export async function regularFileStats(abs: string, rel: string): Promise<Stats> {
  let st: Stats;
  try {
    st = await stat(abs);
  } catch (err) {
    throw mapWorkspaceError(err, rel);
  }
  if (!st.isFile()) {
    const what = st.isDirectory() ? 'a directory' : 'not a regular file';
    throw new BerthError('not_regular_file', `${rel} is ${what}`, {}, st.isDirectory() ? 'use workspace_list for directories' : undefined);
  }
  return st;
}

/**
 * SHA-256 (64 lowercase hex) of a whole file, bounded like `sha256Open`.
 * Files above `maxBytes` are refused rather than hashed for minutes.
 */
export async function sha256File(abs: string, rel: string, maxBytes: number, signal?: AbortSignal): Promise<string> {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw mapWorkspaceError(err, rel);
  }
  try {
    return await sha256Open(fd, rel, maxBytes, signal);
  } finally {
    closeSync(fd);
  }
}

/**
 * SHA-256 of the open file `fd` from its first byte; the caller closes it. A small file (by its
 * fstat) is read inline, since a thread-pool round trip costs more than reading it; a larger one,
 * or what a small one grew by since, is streamed so memory stays flat. Past `maxBytes` the file
 * is refused rather than hashed for minutes.
 */
export async function sha256Open(fd: number, rel: string, maxBytes: number, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  const tooLarge = () => new BerthError('file_too_large', `${rel} is larger than ${maxBytes} bytes`, { limit: maxBytes });
  try {
    const inline = hashSmallInline(fd, hash);
    let seen = inline.bytes;
    if (seen > maxBytes) throw tooLarge();
    if (inline.whole) return hash.digest('hex');
    // Positional reads of its own buffer: a stream over `fd` would close it when destroyed early.
    const chunk = Buffer.allocUnsafe(TEXT_READ_CHUNK_BYTES);
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await readFd(fd, chunk, 0, chunk.length, seen);
      if (bytesRead === 0) break;
      seen += bytesRead;
      if (seen > maxBytes) throw tooLarge();
      hash.update(chunk.subarray(0, bytesRead));
    }
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (err instanceof BerthError) throw err;
    throw mapWorkspaceError(err, rel);
  }
  return hash.digest('hex');
}

const readFd = promisify(read);

/** Hashes a small file's bytes inline: how many, and whether that was the whole file (nothing, for a large one). */
function hashSmallInline(fd: number, hash: Hash): { readonly bytes: number; readonly whole: boolean } {
  const size = fstatSync(fd).size;
  if (size > INLINE_READ_MAX_BYTES) return { bytes: 0, whole: false };
  // One byte more than fstat saw: filling it says the file grew, and the rest is streamed.
  const buffer = Buffer.allocUnsafe(size + 1);
  let seen = 0;
  while (seen < buffer.length) {
    const n = readSync(fd, buffer, seen, buffer.length - seen, seen);
    if (n === 0) break;
    seen += n;
  }
  hash.update(buffer.subarray(0, seen));
  return { bytes: seen, whole: seen < buffer.length };
}

/** The refusal for a revision that no longer matches (docs/gateway.md: "A concurrent change refuses the edit"). */
export function staleHash(rel: string): BerthError {
  return new BerthError(
    'stale_hash',
    `${rel} changed since it was read`,
    { path: rel },
    'read the file again with workspace_read and retry with its sha256',
  );
}
