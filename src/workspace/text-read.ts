import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { BINARY_SNIFF_BYTES, MAX_FILE_SCAN_BYTES, MAX_FILE_WINDOW_BYTES, TEXT_READ_CHUNK_BYTES } from './limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { loadIgnoreRules, type IgnoreMatch } from './ignore.js';
import { countBreaks, LineWindowScanner } from './line-window.js';
import { changedBetween, openConfinedRead, readAt, statOpen, type PositionalFile } from './open-file.js';
import {
  assertSameFile,
  decodeCursor,
  encodeCursor,
  fingerprint,
  fingerprintStart,
  staleCursor,
  type ReadCursor,
} from './read-cursor.js';
import { decodeCapped, lineEndingOf, sniff, transcodeToUtf8, type LineEnding, type TextEncoding } from './text-decode.js';

/** `GET /file` query (docs/client-api.md §11.2), already validated as integers in range by the face. */
export interface TextReadOptions {
  readonly maxBytes?: number;
  readonly line?: number;
  readonly limit?: number;
  readonly cursor?: string;
}

/** The `WorkspaceFile` answer (contract/openapi.json), in wire field order. */
export interface TextFileWindow {
  readonly kind: 'file';
  readonly path: string;
  readonly content: string;
  readonly encoding: TextEncoding;
  readonly bom: boolean;
  readonly lineEnding: LineEnding;
  readonly sizeBytes: number;
  readonly returnedBytes: number;
  readonly truncated: boolean;
  readonly hash?: string;
  readonly matchedIgnore: IgnoreMatch;
  readonly originalLineCount: number | null;
  readonly nextCursor: string | null;
  readonly hasMore: boolean;
}

type Body = Omit<TextFileWindow, 'kind' | 'path' | 'matchedIgnore'>;

const parentOf = (rel: string): string => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');


/**
 * Reads a text window of a workspace file (docs/client-api.md §11.2). Files up to
 * MAX_FILE_WINDOW_BYTES are read whole (hash and line count included); larger
 * ones need a window and are streamed from the window's start, scanning at
 * most MAX_FILE_SCAN_BYTES to reach it.
 */
export async function readTextFile(root: string, userPath: string, options: TextReadOptions): Promise<TextFileWindow> {
  if (options.cursor !== undefined && options.line !== undefined) {
    throw new BerthError('parse_error', '`cursor` and `line` are mutually exclusive');
  }
  // A malformed cursor is refused before any I/O.
  const cursor = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
  const file = await openConfinedRead(root, userPath);
  const windowed = cursor !== undefined || options.line !== undefined || options.limit !== undefined || options.maxBytes !== undefined;
  let reading: Promise<Body> | undefined;
  try {
    if (file.stat.size <= MAX_FILE_WINDOW_BYTES) reading = readWhole(file.handle, file.stat, file.rel, options, cursor);
    else if (windowed) reading = readStreamed(file.handle, file.stat, file.rel, options, cursor);
    else {
      throw new BerthError(
        'file_too_large',
        `file is ${file.stat.size} bytes, above the ${MAX_FILE_WINDOW_BYTES}-byte read budget: ${file.rel}`,
        {},
        'pass line/limit/maxBytes for a window, or use readBytes',
      );
    }
    // The thread pool reads while this thread checks the ignore files on the way (inline lstats).
    const [read, ignore] = await Promise.allSettled([reading, ignoreMatchOf(root, file.rel)]);
    if (read.status === 'rejected') throw read.reason;
    if (ignore.status === 'rejected') throw ignore.reason;
    const body = read.value;
    const matchedIgnore = ignore.value;
    return {
      kind: 'file',
      path: file.rel,
      content: body.content,
      encoding: body.encoding,
      bom: body.bom,
      lineEnding: body.lineEnding,
      sizeBytes: body.sizeBytes,
      returnedBytes: body.returnedBytes,
      truncated: body.truncated,
      ...(body.hash === undefined ? {} : { hash: body.hash }),
      matchedIgnore,
      originalLineCount: body.originalLineCount,
      nextCursor: body.nextCursor,
      hasMore: body.hasMore,
    };
  } finally {
    file.close();
  }
}

async function ignoreMatchOf(root: string, rel: string): Promise<IgnoreMatch> {
  const rules = await loadIgnoreRules(root);
  await rules.prepare(parentOf(rel));
  return rules.match(rel, false);
}

const capOf = (o: TextReadOptions): number => Math.min(o.maxBytes ?? MAX_FILE_WINDOW_BYTES, MAX_FILE_WINDOW_BYTES);

const changedDuringRead = (rel: string): BerthError =>
  new BerthError('hash_mismatch', `the file changed while it was being read: ${rel}`, {}, 'retry the read');

function binaryFile(rel: string, hint = 'use readBytes for binary content'): BerthError {
  return new BerthError('binary_file', `binary file: ${rel}`, {}, hint);
}

function scannerFor(o: TextReadOptions, resume: boolean, base: number, maxSkipBytes: number): LineWindowScanner {
  return new LineWindowScanner(
    { skipLines: resume ? 0 : (o.line ?? 1) - 1, limit: o.limit ?? Infinity, maxContentBytes: capOf(o), maxSkipBytes },
    base,
  );
}

/** A small file: one read of the whole file, then the window is cut in memory. */
async function readWhole(
  handle: PositionalFile,
  stat: Stats,
  rel: string,
  o: TextReadOptions,
  cursor: ReadCursor | undefined,
): Promise<Body> {
  const raw = await readAt(handle, stat.size, 0);
  if (raw.length !== stat.size || changedBetween(stat, statOpen(handle), false)) throw changedDuringRead(rel);
  const sniffed = sniff(raw.subarray(0, BINARY_SNIFF_BYTES));
  if (sniffed.binary) throw binaryFile(rel);
  const utf8 = sniffed.encoding === 'utf-8';
  const body = raw.subarray(sniffed.bomBytes);
  const text = utf8 ? body : transcodeToUtf8(body, sniffed.encoding as Exclude<TextEncoding, 'utf-8'>);
  const breaks = countBreaks(text);

  let base = 0;
  if (cursor) {
    assertSameFile(cursor, stat, rel);
    // Cursors are issued for UTF-8 only, where text offsets are file offsets minus the BOM.
    if (!utf8 || cursor.off < sniffed.bomBytes || fingerprint(raw.subarray(fingerprintStart(cursor.off), cursor.off)) !== cursor.fp) {
      throw staleCursor(rel);
    }
    base = cursor.off - sniffed.bomBytes;
  }
  const scanner = wholeText(o, cursor, text) ?? scannerFor(o, cursor !== undefined, base, Infinity);
  if (scanner instanceof LineWindowScanner) {
    scanner.feed(text.subarray(base), base);
    scanner.finish(text.length);
  }

  const { text: content, cut: decodedCut } = decodeCapped(scanner.content(), capOf(o));
  const cut = decodedCut || scanner.overflow;
  const next = scanner.nextStart;
  const hasMore = cut || (next !== undefined && next < text.length);
  let nextCursor: string | null = null;
  if (hasMore && !cut && utf8 && next !== undefined) {
    const off = next + sniffed.bomBytes;
    nextCursor = cursorFor(stat, off, raw.subarray(fingerprintStart(off), off));
  }
  return {
    content,
    encoding: sniffed.encoding,
    bom: sniffed.bomBytes > 0,
    lineEnding: lineEndingOf(breaks),
    sizeBytes: stat.size,
    returnedBytes: Buffer.byteLength(content),
    truncated: cut || scanner.windowStart !== 0 || scanner.windowEnd !== text.length,
    hash: `sha256:${createHash('sha256').update(raw).digest('hex')}`,
    originalLineCount: breaks.crlf + breaks.lf + 1,
    nextCursor,
    hasMore,
  };
}

/** What readWhole needs of a window; a scanner's, or the whole text's below. */
type Window = Pick<LineWindowScanner, 'content' | 'overflow' | 'nextStart' | 'windowStart' | 'windowEnd'>;

/**
 * The window when it is simply the whole text (no line, limit or cursor, and
 * within the byte cap): the scanner would copy it line by line to give the
 * same bytes back, about half the time of a 96 KiB read.
 */
function wholeText(o: TextReadOptions, cursor: ReadCursor | undefined, text: Buffer): Window | undefined {
  if (cursor !== undefined || o.line !== undefined || o.limit !== undefined || text.length > capOf(o)) return undefined;
  return { content: () => text, overflow: false, nextStart: undefined, windowStart: 0, windowEnd: text.length };
}

function cursorFor(stat: Stats, off: number, before: Uint8Array): string {
  return encodeCursor({ off, size: stat.size, dev: String(stat.dev), ino: String(stat.ino), fp: fingerprint(before) });
}

/**
 * A large file: stream from the window's start (the BOM's end, or the
 * cursor's offset) and stop as soon as the window is complete. Only UTF-8 can
 * be streamed; any other encoding is refused as binary (a smaller window would
 * never help, so 413 would invite endless retries).
 */
async function readStreamed(
  handle: PositionalFile,
  stat: Stats,
  rel: string,
  o: TextReadOptions,
  cursor: ReadCursor | undefined,
): Promise<Body> {
  const size = stat.size;
  const sniffed = sniff(await readAt(handle, Math.min(BINARY_SNIFF_BYTES, size), 0));
  if (sniffed.binary) throw binaryFile(rel);
  if (sniffed.encoding !== 'utf-8') throw binaryFile(rel, `convert the file to UTF-8 to read it as text, or use readBytes`);

  let base = sniffed.bomBytes;
  let crlfBeforeCursor = false;
  if (cursor) {
    assertSameFile(cursor, stat, rel);
    const before = await readAt(handle, cursor.off - fingerprintStart(cursor.off), fingerprintStart(cursor.off));
    if (fingerprint(before) !== cursor.fp) throw staleCursor(rel);
    crlfBeforeCursor = before.length >= 2 && before[before.length - 2] === 0x0d;
    base = cursor.off;
  }
  const scanner = scannerFor(o, cursor !== undefined, base, MAX_FILE_SCAN_BYTES);
  for (let at = base; !scanner.done && at < size; ) {
    const chunk = await readAt(handle, Math.min(TEXT_READ_CHUNK_BYTES, size - at), at);
    if (chunk.length === 0) break;
    scanner.feed(chunk, at);
    at += chunk.length;
  }
  if (scanner.scanExceeded) {
    throw new BerthError(
      'file_too_large',
      `line ${o.line ?? 1} lies beyond the ${MAX_FILE_SCAN_BYTES}-byte scan budget: ${rel}`,
      {},
      'page with nextCursor from an earlier window, or use readBytes',
    );
  }
  scanner.finish(size);
  if (changedBetween(stat, statOpen(handle), true)) throw changedDuringRead(rel);

  const raw = scanner.content();
  const { text: content, cut: decodedCut } = decodeCapped(raw, capOf(o));
  const cut = decodedCut || scanner.overflow;
  const next = scanner.nextStart;
  const hasMore = cut || (next !== undefined && next < size);
  let nextCursor: string | null = null;
  if (hasMore && !cut && next !== undefined) {
    nextCursor = cursorFor(stat, next, await readAt(handle, next - fingerprintStart(next), fingerprintStart(next)));
  }
  // The line ending of a window: its own breaks plus the ones that bound it.
  const breaks = countBreaks(raw);
  const crlfBefore = cursor ? crlfBeforeCursor : scanner.crlfBeforeWindow;
  if (crlfBefore !== undefined && scanner.windowStart !== sniffed.bomBytes) breaks[crlfBefore ? 'crlf' : 'lf']++;
  if (next !== undefined) breaks[raw.length > 0 && raw[raw.length - 1] === 0x0d ? 'crlf' : 'lf']++;
  const readToEnd = !scanner.overflow && (next === undefined || next >= size);
  return {
    content,
    encoding: 'utf-8',
    bom: sniffed.bomBytes > 0,
    lineEnding: lineEndingOf(breaks),
    sizeBytes: size,
    returnedBytes: Buffer.byteLength(content),
    truncated: cut || scanner.windowStart !== sniffed.bomBytes || scanner.windowEnd !== size,
    originalLineCount: cursor === undefined && readToEnd ? scanner.newlines + 1 : null,
    nextCursor,
    hasMore,
  };
}
