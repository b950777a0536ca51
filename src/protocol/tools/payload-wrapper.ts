import { COMPRESSION_THRESHOLD_BYTES } from '../limits.js';
import { BerthError } from '../errors/index.js';

/**
 * docs/tool-protocol.md (Large JSON Payload Encoding): the rules of the `gzip-base64-json`
 * wrapper, without a gzip codec. The daemon pairs them with zlib
 * (compression.ts, synchronous); the `berth/app` SDK with the web-standard
 * CompressionStream (app/codec.ts), so it also runs in a browser. One set of
 * rules, two codecs.
 */
export const GZIP_BASE64_JSON = 'gzip-base64-json';

export interface CompressedPayload {
  readonly $ansightEncoding: typeof GZIP_BASE64_JSON;
  readonly contentType: 'application/json';
  /** Bytes of the compact JSON before gzip (pre-base64), for diagnostics and bounds checks. */
  readonly originalByteCount: number;
  /** Bytes of the gzip stream (pre-base64). */
  readonly compressedByteCount: number;
  readonly data: string;
}

/** Worth trying gzip: the compact JSON reaches the threshold (32 KiB by default). */
export function worthCompressing(jsonBytes: number, thresholdBytes = COMPRESSION_THRESHOLD_BYTES): boolean {
  return jsonBytes >= thresholdBytes;
}

/** The wrapper for a gzip stream, or null when base64 of it is not smaller than the original (docs/tool-protocol.md). */
export function wrapperFor(originalByteCount: number, compressedByteCount: number, base64: string): CompressedPayload | null {
  if (base64.length >= originalByteCount) return null;
  return { $ansightEncoding: GZIP_BASE64_JSON, contentType: 'application/json', originalByteCount, compressedByteCount, data: base64 };
}

/** Rule 1: a payload without `$ansightEncoding` is ordinary JSON. */
export function isWrapped(payload: unknown): payload is Record<string, unknown> {
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload) && Object.hasOwn(payload, '$ansightEncoding');
}

/** Canonical base64 (RFC 4648 §4, padded): lenient decoders would silently skip junk characters. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Rule 3, before inflating: the encoding must be ours, the declared size
 * within `maxBytes`, and `data` non-empty canonical base64. Returns `data`.
 */
export function wrappedData(wrapper: Record<string, unknown>, maxBytes: number): string {
  const encoding = wrapper.$ansightEncoding;
  if (encoding !== GZIP_BASE64_JSON) throw refuseEncoding(`Unsupported payload encoding ${JSON.stringify(encoding)}`);
  const declared = wrapper.originalByteCount;
  if (typeof declared === 'number' && declared > maxBytes) {
    throw refuseEncoding(`The payload declares ${declared} bytes; at most ${maxBytes} are accepted`);
  }
  const data = wrapper.data;
  if (typeof data !== 'string' || data.length === 0) throw refuseEncoding('The compressed payload has no `data`');
  if (!BASE64.test(data)) throw refuseEncoding('The compressed payload `data` is not valid base64');
  return data;
}

/** Rule 2's last steps: the inflated bytes must be UTF-8 and then JSON. */
export function parseInflated(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refuseEncoding('The decompressed payload is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw refuseEncoding('The decompressed payload is not valid JSON');
  }
}

export function inflateFailure(err: unknown, maxBytes: number, tooBig: boolean): BerthError {
  return refuseEncoding(
    tooBig
      ? `The compressed payload inflates past ${maxBytes} bytes`
      : `The compressed payload is not valid gzip: ${err instanceof Error ? err.message : String(err)}`,
  );
}

export const refuseEncoding = (message: string) => new BerthError('invalid_encoding', message);
