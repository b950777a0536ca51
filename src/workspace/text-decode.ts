import { BINARY_CONTROL_RATIO, BINARY_SNIFF_BYTES } from './limits.js';

/**
 * What the first bytes of a file say about its text (docs/client-api.md §11.2): a BOM names
 * the encoding; without one, a NUL or too many control bytes in the first
 * BINARY_SNIFF_BYTES mean binary, anything else is read as UTF-8.
 */
export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be';

export interface Sniffed {
  readonly binary: boolean;
  readonly encoding: TextEncoding;
  /** Length of the byte order mark (0 when none). */
  readonly bomBytes: number;
}

const startsWith = (b: Uint8Array, sig: readonly number[]): boolean =>
  b.length >= sig.length && sig.every((v, i) => b[i] === v);

export function sniff(head: Uint8Array): Sniffed {
  // UTF-32LE's BOM begins with UTF-16LE's, so it is tested first.
  if (startsWith(head, [0xff, 0xfe, 0x00, 0x00])) return { binary: false, encoding: 'utf-32le', bomBytes: 4 };
  if (startsWith(head, [0x00, 0x00, 0xfe, 0xff])) return { binary: false, encoding: 'utf-32be', bomBytes: 4 };
  if (startsWith(head, [0xef, 0xbb, 0xbf])) return { binary: false, encoding: 'utf-8', bomBytes: 3 };
  if (startsWith(head, [0xff, 0xfe])) return { binary: false, encoding: 'utf-16le', bomBytes: 2 };
  if (startsWith(head, [0xfe, 0xff])) return { binary: false, encoding: 'utf-16be', bomBytes: 2 };
  const n = Math.min(head.length, BINARY_SNIFF_BYTES);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const c = head[i]!;
    if (c === 0) return { binary: true, encoding: 'utf-8', bomBytes: 0 };
    // TAB, LF, VT, FF and CR are ordinary in text.
    if (c < 0x20 && (c < 0x09 || c > 0x0d)) control++;
  }
  return { binary: n > 0 && control / n > BINARY_CONTROL_RATIO, encoding: 'utf-8', bomBytes: 0 };
}

function decodeUtf32(bytes: Uint8Array, littleEndian: boolean): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  let run: number[] = [];
  const whole = bytes.byteLength - (bytes.byteLength % 4);
  for (let i = 0; i < whole; i += 4) {
    const cp = view.getUint32(i, littleEndian);
    const valid = cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);
    run.push(valid ? cp : 0xfffd);
    if (run.length === 4096) {
      parts.push(String.fromCodePoint(...run));
      run = [];
    }
  }
  if (whole !== bytes.byteLength) run.push(0xfffd);
  parts.push(String.fromCodePoint(...run));
  return parts.join('');
}

/**
 * The UTF-8 bytes of a non-UTF-8 text body (BOM already removed), so one
 * byte-level windowing serves every encoding.
 */
export function transcodeToUtf8(body: Uint8Array, encoding: Exclude<TextEncoding, 'utf-8'>): Buffer {
  let text: string;
  if (encoding === 'utf-32le' || encoding === 'utf-32be') text = decodeUtf32(body, encoding === 'utf-32le');
  else text = new TextDecoder(encoding).decode(body);
  return Buffer.from(text, 'utf8');
}

/** Decodes UTF-8 bytes (invalid sequences become U+FFFD) capped at `maxBytes` of UTF-8, cut on a character boundary. */
export function decodeCapped(bytes: Buffer, maxBytes: number): { text: string; cut: boolean } {
  const text = bytes.toString('utf8');
  if (bytes.length <= maxBytes && !text.includes('\ufffd')) return { text, cut: false };
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= maxBytes) return { text, cut: false };
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the character that did not fit.
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return { text: encoded.toString('utf8', 0, end), cut: true };
}

export type LineEnding = 'crlf' | 'lf';

/** Line breaks seen, split by kind; the majority names the file's line ending (ties are LF). */
export interface BreakCounts {
  crlf: number;
  lf: number;
}

export const lineEndingOf = (c: BreakCounts): LineEnding => (c.crlf > c.lf ? 'crlf' : 'lf');
