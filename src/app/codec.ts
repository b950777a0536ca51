import { COMPRESSION_THRESHOLD_BYTES, MAX_DECOMPRESSED_BYTES } from '../protocol/limits.js';
import { inflateFailure, isWrapped, parseInflated, worthCompressing, wrappedData, wrapperFor } from '../protocol/tools/payload-wrapper.js';

/**
 * The `gzip-base64-json` wrapper (docs/tool-protocol.md) for the SDK, with the
 * web-standard CompressionStream so the same code runs in Node 20 and in
 * browsers. The rules are the daemon's (tools/payload-wrapper.ts); only the
 * gzip codec differs.
 */

export async function encodePayload(payload: unknown, thresholdBytes = COMPRESSION_THRESHOLD_BYTES): Promise<unknown> {
  const json = new TextEncoder().encode(JSON.stringify(payload));
  if (!worthCompressing(json.byteLength, thresholdBytes)) return payload;
  const gz = await pipe(json, new CompressionStream('gzip'), Infinity);
  return wrapperFor(json.byteLength, gz.byteLength, toBase64(gz)) ?? payload;
}

export async function decodePayload(payload: unknown, maxBytes = MAX_DECOMPRESSED_BYTES): Promise<unknown> {
  if (!isWrapped(payload)) return payload;
  const data = wrappedData(payload, maxBytes);
  let inflated: Uint8Array;
  try {
    inflated = await pipe(fromBase64(data), new DecompressionStream('gzip'), maxBytes);
  } catch (err) {
    throw inflateFailure(err, maxBytes, err instanceof TooLarge);
  }
  return parseInflated(inflated);
}

class TooLarge extends Error {}

/** Runs bytes through a transform, giving up once the output passes `maxBytes` (no memory bombs). */
async function pipe(input: Uint8Array, transform: CompressionStream | DecompressionStream, maxBytes: number): Promise<Uint8Array> {
  const writer = transform.writable.getWriter();
  // Errors surface on the reading side; the writer's own promises are awaited there too.
  const written = writer.write(input).then(() => writer.close());
  written.catch(() => undefined);
  const reader = transform.readable.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new TooLarge(`output passes ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  await written;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Base64 without Node's Buffer (browsers), in slices so large payloads do not overflow the call stack. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const slice = 0x8000;
  for (let i = 0; i < bytes.length; i += slice) binary += String.fromCharCode(...bytes.subarray(i, i + slice));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
