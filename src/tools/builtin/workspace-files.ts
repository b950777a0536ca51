import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { resolve } from 'node:path';
import { BerthError } from '../../protocol/errors/index.js';
import { mapWorkspaceError } from '../../workspace/fs-errors.js';
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
 * SHA-256 (64 lowercase hex) of a whole file, streamed so memory stays flat.
 * Files above `maxBytes` are refused rather than hashed for minutes.
 */
export async function sha256File(abs: string, rel: string, maxBytes: number, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  let seen = 0;
  try {
    for await (const chunk of createReadStream(abs, { signal }) as AsyncIterable<Buffer>) {
      seen += chunk.length;
      if (seen > maxBytes) {
        throw new BerthError('file_too_large', `${rel} is larger than ${maxBytes} bytes`, { limit: maxBytes });
      }
      hash.update(chunk);
    }
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw mapWorkspaceError(err, rel);
  }
  return hash.digest('hex');
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
