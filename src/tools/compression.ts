import { promisify } from 'node:util';
import { gunzip, gunzipSync, gzipSync } from 'node:zlib';
import { COMPRESSION_THRESHOLD_BYTES, MAX_DECOMPRESSED_BYTES } from '../protocol/limits.js';
import { inflateFailure, isWrapped, parseInflated, worthCompressing, wrappedData, wrapperFor } from '../protocol/tools/payload-wrapper.js';

export { GZIP_BASE64_JSON, type CompressedPayload } from '../protocol/tools/payload-wrapper.js';

/**
 * Wraps a payload whose compact JSON is at least 32 KiB when gzip plus base64
 * is smaller than the original; anything else travels as ordinary JSON.
 * Only the payload is wrapped, never envelope fields (docs/tool-protocol.md).
 */
export function encodePayload(payload: unknown, thresholdBytes = COMPRESSION_THRESHOLD_BYTES): unknown {
  const json = Buffer.from(JSON.stringify(payload), 'utf8');
  if (!worthCompressing(json.byteLength, thresholdBytes)) return payload;
  const gz = gzipSync(json);
  return wrapperFor(json.byteLength, gz.byteLength, gz.toString('base64')) ?? payload;
}

/**
 * Reads a payload that may be wrapped, following the tool protocol's three rules:
 * 1. no `$ansightEncoding` → the payload is ordinary JSON, returned as is;
 * 2. `gzip-base64-json` → base64-decode `data`, gunzip, decode UTF-8, parse JSON;
 * 3. an unsupported encoding, missing or invalid base64, a gzip failure or
 *    invalid decoded JSON is a protocol error (`invalid_encoding`).
 * Inflation is capped at MAX_DECOMPRESSED_BYTES so a small frame cannot
 * become a memory bomb.
 */
export function decodePayload(payload: unknown, maxBytes = MAX_DECOMPRESSED_BYTES): unknown {
  if (!isWrapped(payload)) return payload;
  const data = wrappedData(payload, maxBytes);
  let inflated: Buffer;
  try {
    inflated = gunzipSync(Buffer.from(data, 'base64'), { maxOutputLength: maxBytes });
  } catch (err) {
    throw inflateFailure(err, maxBytes, (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE');
  }
  return parseInflated(inflated);
}

const gunzipAsync = promisify(gunzip);

/**
 * `decodePayload` with the inflation off the event loop (zlib's thread pool):
 * a wrapped catalog may inflate to 16 MiB, which inflated in one synchronous
 * step held every other client for as long as it took. The JSON parse stays
 * on the loop, bounded by the same cap.
 */
export async function decodePayloadAsync(payload: unknown, maxBytes = MAX_DECOMPRESSED_BYTES): Promise<unknown> {
  if (!isWrapped(payload)) return payload;
  const data = wrappedData(payload, maxBytes);
  let inflated: Buffer;
  try {
    inflated = await gunzipAsync(Buffer.from(data, 'base64'), { maxOutputLength: maxBytes });
  } catch (err) {
    throw inflateFailure(err, maxBytes, (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE');
  }
  return parseInflated(inflated);
}
