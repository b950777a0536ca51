/** True for a byte that continues a UTF-8 sequence (10xxxxxx), so a cut before it would split a character. */
export function isUtf8Continuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes UTF-8 exactly, or returns null when the bytes are not valid UTF-8.
 * A byte-order mark is kept, so text written back is byte-for-byte the same.
 */
export function utf8Decode(bytes: Uint8Array): string | null {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Length of the longest prefix of `bytes` that does not end inside a UTF-8
 * sequence: a window of a stream still being written may end mid-character,
 * and the rest of that character belongs to the next window.
 */
export function completeUtf8Length(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back];
    if (isUtf8Continuation(b)) continue;
    const need = b < 0x80 ? 1 : (b & 0xe0) === 0xc0 ? 2 : (b & 0xf0) === 0xe0 ? 3 : (b & 0xf8) === 0xf0 ? 4 : 1;
    return need > back ? n - back : n;
  }
  return n;
}
