import { createHash } from 'node:crypto';
import { MAX_GATEWAY_READ_BYTES, MAX_HASHED_FILE_BYTES } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Tool, ToolContext, ToolResult } from '../types.js';
import { optionalInteger, requiredString } from './args.js';
import { mapWorkspaceError } from '../../workspace/fs-errors.js';
import { seedToolDefinition } from './seed-tools.js';
import { isUtf8Continuation, utf8Decode } from './utf8.js';
import { readAt, type PositionalFile } from '../../workspace/open-file.js';
import { localWorkspaceOf, openToolFile } from './workspace-files.js';

/** git's heuristic: a NUL byte in the first 8000 bytes makes a file binary. */
const BINARY_SNIFF_BYTES = 8000;
/** A UTF-8 character is at most 4 bytes, so a window edge moves at most 3 bytes to reach a boundary. */
const MAX_CHAR_SHIFT = 3;
/** Bytes read per step while hashing. */
const SCAN_CHUNK_BYTES = 64 * 1024;

/**
 * `workspace_read` (docs/gateway.md): a byte window of a UTF-8 file plus the SHA-256
 * of the whole file, which write/patch/delete expect back. The window never
 * splits a character: its start moves back and its end moves back to the
 * nearest boundary, and the range actually returned is reported, with
 * `hasMore`/`nextOffset` whenever bytes remain ("no content is silently
 * shortened").
 */
export function workspaceReadTool(): Tool {
  return {
    ...seedToolDefinition('workspace_read', { policy: 'read', category: 'workspace' }),
    run: (args, ctx) => readFileWindow(args, ctx),
  };
}

async function readFileWindow(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const ws = localWorkspaceOf(ctx);
  const path = requiredString(args, 'path');
  const offset = optionalInteger(args, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const limit = optionalInteger(args, 'limit', 1, MAX_GATEWAY_READ_BYTES) ?? MAX_GATEWAY_READ_BYTES;
  const captureFrom = Math.max(0, offset - MAX_CHAR_SHIFT);
  const { handle, stat: st, rel, close } = await openToolFile(ws, path);
  let scan: FileScan;
  try {
    if (st.size > MAX_HASHED_FILE_BYTES) {
      throw new BerthError('file_too_large', `${rel} is larger than ${MAX_HASHED_FILE_BYTES} bytes`, {
        limit: MAX_HASHED_FILE_BYTES,
      });
    }
    scan = await scanFile(handle, rel, captureFrom, offset + limit + MAX_CHAR_SHIFT, st.size, ctx.signal);
  } finally {
    close();
  }
  if (scan.head.includes(0)) throw binaryFile(rel);

  const byteAt = (i: number): number => scan.captured[i - captureFrom];
  const size = scan.size;
  let start = Math.min(offset, size);
  for (let k = 0; k < MAX_CHAR_SHIFT && start > 0 && start < size && isUtf8Continuation(byteAt(start)); k++) start--;
  let end = Math.min(size, start + limit);
  while (end > start && end < size && isUtf8Continuation(byteAt(end))) end--;
  if (end === start && start < size) {
    // The limit is smaller than the character at `start`: return that one character whole.
    end = start + 1;
    while (end < size && isUtf8Continuation(byteAt(end))) end++;
  }
  const content = utf8Decode(scan.captured.subarray(start - captureFrom, end - captureFrom));
  if (content === null) throw binaryFile(rel);
  const hasMore = end < size;
  return {
    value: {
      path: rel,
      content,
      encoding: 'utf-8',
      sha256: scan.sha256,
      size,
      range: { start, end },
      returnedBytes: end - start,
      hasMore,
      nextOffset: hasMore ? end : null,
    },
  };
}

interface FileScan {
  readonly sha256: string;
  readonly size: number;
  readonly head: Buffer;
  readonly captured: Buffer;
}

/**
 * One pass over the file: the hash of every byte, the first bytes for the
 * binary check and the bytes of [from, to). One pass means the window and the
 * revision describe the same bytes even if the file is being rewritten.
 */
async function scanFile(
  handle: PositionalFile,
  rel: string,
  from: number,
  to: number,
  statSize: number,
  signal: AbortSignal,
): Promise<FileScan> {
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  const captured: Buffer[] = [];
  let pos = 0;
  for (;;) {
    signal.throwIfAborted();
    // Up to the size fstat saw and one byte more, which tells whether the file grew since: a small
    // file then costs a buffer of its own size, not a whole chunk.
    const want = pos < statSize ? Math.min(SCAN_CHUNK_BYTES, statSize - pos + 1) : SCAN_CHUNK_BYTES;
    const chunk = await readAt(handle, want, pos).catch((err: unknown) => {
      throw mapWorkspaceError(err, rel);
    });
    if (chunk.length === 0) break;
    const chunkEnd = pos + chunk.length;
    if (chunkEnd > MAX_HASHED_FILE_BYTES) {
      throw new BerthError('file_too_large', `${rel} grew past ${MAX_HASHED_FILE_BYTES} bytes while read`);
    }
    hash.update(chunk);
    if (pos < BINARY_SNIFF_BYTES) head.push(chunk.subarray(0, BINARY_SNIFF_BYTES - pos));
    if (chunkEnd > from && pos < to) captured.push(chunk.subarray(Math.max(0, from - pos), Math.min(chunk.length, to - pos)));
    pos = chunkEnd;
    // A short read is the file's end (readAt): no read more to find it.
    if (chunk.length < want) break;
  }
  return { sha256: hash.digest('hex'), size: pos, head: Buffer.concat(head), captured: Buffer.concat(captured) };
}

function binaryFile(rel: string): BerthError {
  return new BerthError(
    'binary_file',
    `binary file: ${rel}`,
    { path: rel },
    'use workspace_image for images and workspace_document for PDFs',
  );
}
