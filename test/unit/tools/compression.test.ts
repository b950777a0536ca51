import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { COMPRESSION_THRESHOLD_BYTES } from '../../../src/protocol/limits.js';
import { BerthError } from '../../../src/protocol/errors/index.js';
import { decodePayload, encodePayload, type CompressedPayload } from '../../../src/tools/compression.js';

const largePayload = () => ({
  tools: Array.from({ length: 400 }, (_, i) => ({ id: `tool.${i}`, description: 'A tool that does the same thing as its neighbours' })),
});

function wrapper(data: string, extra: Record<string, unknown> = {}) {
  return { $ansightEncoding: 'gzip-base64-json', contentType: 'application/json', originalByteCount: 1, compressedByteCount: 1, data, ...extra };
}

const refusedAsEncoding = (err: unknown) =>
  err instanceof BerthError && err.code === 'invalid_encoding' && err.errorKind === 'protocol_error';

describe('gzip-base64-json payload encoding', () => {
  it('leaves payloads under 32 KiB as ordinary JSON', () => {
    const small = { text: 'x'.repeat(COMPRESSION_THRESHOLD_BYTES - 20) };
    assert.ok(JSON.stringify(small).length < COMPRESSION_THRESHOLD_BYTES);
    assert.equal(encodePayload(small), small);
  });

  it('wraps a large compressible payload with its byte counts and decodes it back unchanged', () => {
    const payload = largePayload();
    const json = Buffer.from(JSON.stringify(payload));
    assert.ok(json.byteLength >= COMPRESSION_THRESHOLD_BYTES);
    const wrapped = encodePayload(payload) as CompressedPayload;
    assert.equal(wrapped.$ansightEncoding, 'gzip-base64-json');
    assert.equal(wrapped.contentType, 'application/json');
    assert.equal(wrapped.originalByteCount, json.byteLength);
    assert.equal(wrapped.compressedByteCount, Buffer.from(wrapped.data, 'base64').byteLength);
    assert.ok(wrapped.data.length < json.byteLength);
    assert.deepEqual(decodePayload(wrapped), payload);
  });

  it('keeps a large incompressible payload as ordinary JSON', () => {
    const payload = { noise: randomBytes(40 * 1024).toString('base64') };
    assert.equal(encodePayload(payload), payload);
  });

  it('passes a payload without $ansightEncoding through as is', () => {
    const plain = { schema: 'x', data: 'not base64 at all' };
    assert.equal(decodePayload(plain), plain);
    const list = [1, 2];
    assert.equal(decodePayload(list), list);
  });

  it('rejects an unsupported encoding', () => {
    assert.throws(() => decodePayload(wrapper('', { $ansightEncoding: 'brotli-base64-json' })), refusedAsEncoding);
  });

  it('rejects missing or invalid base64 data', () => {
    assert.throws(() => decodePayload({ $ansightEncoding: 'gzip-base64-json' }), refusedAsEncoding);
    assert.throws(() => decodePayload(wrapper('')), refusedAsEncoding);
    assert.throws(() => decodePayload(wrapper('H4sI!!!!')), refusedAsEncoding);
    assert.throws(() => decodePayload(wrapper('abc')), refusedAsEncoding, 'unpadded');
  });

  it('rejects data that is not gzip', () => {
    assert.throws(() => decodePayload(wrapper(Buffer.from('{"plain":"json"}').toString('base64'))), refusedAsEncoding);
  });

  it('rejects decoded bytes that are not UTF-8 JSON', () => {
    assert.throws(() => decodePayload(wrapper(gzipSync(Buffer.from('{"half": ')).toString('base64'))), refusedAsEncoding);
    assert.throws(() => decodePayload(wrapper(gzipSync(Buffer.from([0x7b, 0xff, 0x7d])).toString('base64'))), refusedAsEncoding);
  });

  it('rejects a payload that inflates past the decompression cap', () => {
    const bomb = gzipSync(Buffer.from(JSON.stringify({ pad: 'a'.repeat(4096) })));
    assert.throws(() => decodePayload(wrapper(bomb.toString('base64')), 1024), refusedAsEncoding);
    assert.throws(() => decodePayload(wrapper(bomb.toString('base64'), { originalByteCount: 10_000 }), 1024), refusedAsEncoding);
    assert.deepEqual(decodePayload(wrapper(bomb.toString('base64')), 8192), { pad: 'a'.repeat(4096) });
  });
});
