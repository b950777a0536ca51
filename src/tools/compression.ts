import { gunzipSync, gzipSync } from 'node:zlib';
import { COMPRESSION_THRESHOLD_BYTES, MAX_DECOMPRESSED_BYTES } from '../config/limits.js';
import { BerthError } from '../errors/index.js';

/** Seed 003 (Large JSON Payload Encoding): the one encoding this protocol defines. */
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

/**
 * Wraps a payload whose compact JSON is at least 32 KiB when gzip plus base64
 * is smaller than the original; anything else travels as ordinary JSON.
 * Only the payload is wrapped, never envelope fields (seed 003).
 */
export function encodePayload(payload: unknown, thresholdBytes = COMPRESSION_THRESHOLD_BYTES): unknown {
  const json = Buffer.from(JSON.stringify(payload), 'utf8');
  if (json.byteLength < thresholdBytes) return payload;
  const gz = gzipSync(json);
  const data = gz.toString('base64');
  if (data.length >= json.byteLength) return payload;
  const wrapper: CompressedPayload = {
    $ansightEncoding: GZIP_BASE64_JSON,
    contentType: 'application/json',
    originalByteCount: json.byteLength,
    compressedByteCount: gz.byteLength,
    data,
  };
  return wrapper;
}

/** Canonical base64 (RFC 4648 §4, padded): Buffer.from would silently skip junk characters. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Reads a payload that may be wrapped, following seed 003's three rules:
 * 1. no `$ansightEncoding` → the payload is ordinary JSON, returned as is;
 * 2. `gzip-base64-json` → base64-decode `data`, gunzip, decode UTF-8, parse JSON;
 * 3. an unsupported encoding, missing or invalid base64, a gzip failure or
 *    invalid decoded JSON is a protocol error (`invalid_encoding`).
 * Inflation is capped at MAX_DECOMPRESSED_BYTES so a small frame cannot
 * become a memory bomb.
 */
export function decodePayload(payload: unknown, maxBytes = MAX_DECOMPRESSED_BYTES): unknown {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return payload;
  if (!Object.hasOwn(payload, '$ansightEncoding')) return payload;
  const wrapper = payload as Record<string, unknown>;
  const encoding = wrapper.$ansightEncoding;
  if (encoding !== GZIP_BASE64_JSON) {
    throw refuse(`Unsupported payload encoding ${JSON.stringify(encoding)}`);
  }
  const declared = wrapper.originalByteCount;
  if (typeof declared === 'number' && declared > maxBytes) {
    throw refuse(`The payload declares ${declared} bytes; at most ${maxBytes} are accepted`);
  }
  const data = wrapper.data;
  if (typeof data !== 'string' || data.length === 0) throw refuse('The compressed payload has no `data`');
  if (!BASE64.test(data)) throw refuse('The compressed payload `data` is not valid base64');
  let inflated: Buffer;
  try {
    inflated = gunzipSync(Buffer.from(data, 'base64'), { maxOutputLength: maxBytes });
  } catch (err) {
    const tooBig = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    throw refuse(
      tooBig
        ? `The compressed payload inflates past ${maxBytes} bytes`
        : `The compressed payload is not valid gzip: ${(err as Error).message}`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(inflated);
  } catch {
    throw refuse('The decompressed payload is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw refuse('The decompressed payload is not valid JSON');
  }
}

const refuse = (message: string) => new BerthError('invalid_encoding', message);
