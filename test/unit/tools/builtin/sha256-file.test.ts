import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BerthError } from '../../../../src/protocol/errors/index.js';
import { sha256File } from '../../../../src/tools/builtin/workspace-files.js';
import { INLINE_READ_MAX_BYTES } from '../../../../src/workspace/limits.js';
import { removeDir, tempDir } from '../../../support/tmp.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('sha256File', () => {
  const root = tempDir('berth-sha-');
  after(() => removeDir(root));
  const file = (name: string, size: number): { abs: string; bytes: Buffer } => {
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 31 + size) & 0xff;
    const abs = join(root, name);
    writeFileSync(abs, bytes);
    return { abs, bytes };
  };

  it('hashes files read inline and streamed alike, on both sides of the inline bound', async () => {
    for (const size of [0, 1, INLINE_READ_MAX_BYTES - 1, INLINE_READ_MAX_BYTES, INLINE_READ_MAX_BYTES + 1, 3 * INLINE_READ_MAX_BYTES + 7]) {
      const { abs, bytes } = file(`f${size}`, size);
      assert.equal(await sha256File(abs, `f${size}`, 8 * INLINE_READ_MAX_BYTES), sha(bytes), `size ${size}`);
    }
  });

  it('refuses a file above the bound, whether it would be read inline or streamed', async () => {
    for (const [size, limit] of [
      [100, 10],
      [INLINE_READ_MAX_BYTES * 2, INLINE_READ_MAX_BYTES + 5],
    ] as const) {
      const { abs } = file(`big${size}`, size);
      await assert.rejects(sha256File(abs, `big${size}`, limit), (err: unknown) => err instanceof BerthError && err.code === 'file_too_large');
      assert.equal(await sha256File(abs, `big${size}`, size).then((h) => h.length), 64, 'a file exactly at the bound is hashed');
    }
  });

  it('maps a missing file to path_not_found', async () => {
    await assert.rejects(sha256File(join(root, 'absent'), 'absent', 100), (err: unknown) => err instanceof BerthError && err.code === 'path_not_found');
  });
});
