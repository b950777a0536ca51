import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { DEFAULT_FRAME_BYTES } from '../../../../src/protocol/limits.js';
import { MAX_PAGE_TEXT_BYTES } from '../../../../src/tools/limits.js';
import { refusedWith, toolFixture, type ToolFixture } from './fixture.js';

async function pdfWithPages(pages: string[][]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage();
    lines.forEach((line, i) => page.drawText(line, { x: 40, y: 750 - i * 14, size: 10, font }));
  }
  return Buffer.from(await doc.save());
}

describe('workspace_image', () => {
  let f: ToolFixture;
  let noise: Buffer;
  before(async () => {
    f = toolFixture({ 'notes.txt': 'not an image', 'fake.png': 'plain text named like an image' });
    const small = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366cc' } }).png().toBuffer();
    writeFileSync(join(f.root, 'small.png'), small);
    // A PNG under another name: detection is by content.
    writeFileSync(join(f.root, 'small.dat'), small);
    writeFileSync(join(f.root, 'pic.webp'), await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } }).webp().toBuffer());
    // Random pixels do not compress: a 1200x1000 RGB PNG is about 3.6 MB, too big for one frame.
    noise = await sharp(randomBytes(1200 * 1000 * 3), { raw: { width: 1200, height: 1000, channels: 3 } }).png().toBuffer();
    writeFileSync(join(f.root, 'big.png'), noise);
    writeFileSync(join(f.root, 'broken.png'), Buffer.concat([small.subarray(0, 40)]));
  });
  after(() => f.close());

  it('returns a small PNG unchanged as image content with its metadata', async () => {
    const r = await f.result('workspace_image', { path: 'small.png' });
    const [block] = r.content!;
    assert.equal(block.type, 'image');
    assert.equal(block.type === 'image' && block.mimeType, 'image/png');
    const meta = await sharp(Buffer.from((block as { data: string }).data, 'base64')).metadata();
    assert.equal(meta.width, 40);
    const v = r.value as any;
    assert.equal(v.scaled, false);
    assert.deepEqual(v.returned, { width: 40, height: 30, bytes: v.original.bytes });
  });

  it('detects the format by content, not by the file name', async () => {
    const r = await f.call('workspace_image', { path: 'small.dat' });
    assert.equal(r.mimeType, 'image/png');
    const w = await f.call('workspace_image', { path: 'pic.webp' });
    assert.equal(w.mimeType, 'image/webp');
  });

  it('scales a large image down until its base64 fits one 2 MiB frame', async () => {
    assert.ok(Math.ceil(noise.length / 3) * 4 > DEFAULT_FRAME_BYTES, 'the test image must be too big to begin with');
    const r = await f.result('workspace_image', { path: 'big.png' });
    const v = r.value as any;
    const block = r.content![0] as { data: string; mimeType: string };
    assert.equal(v.scaled, true);
    assert.ok(block.data.length < DEFAULT_FRAME_BYTES);
    assert.ok(JSON.stringify(r).length < DEFAULT_FRAME_BYTES);
    const meta = await sharp(Buffer.from(block.data, 'base64')).metadata();
    assert.equal(meta.width, v.returned.width);
    assert.ok(v.returned.width < 1200 && v.returned.height < 1000);
    assert.equal(v.original.width, 1200);
    // Aspect ratio kept (within a pixel of rounding).
    assert.ok(Math.abs(v.returned.width / v.returned.height - 1.2) < 0.02);
  });

  it('refuses text, text named like an image and a truncated image', async () => {
    await refusedWith(f.call('workspace_image', { path: 'notes.txt' }), 'invalid_image');
    await refusedWith(f.call('workspace_image', { path: 'fake.png' }), 'invalid_image');
    await refusedWith(f.call('workspace_image', { path: 'broken.png' }), 'invalid_image');
  });
});

describe('workspace_document', () => {
  let f: ToolFixture;
  before(async () => {
    f = toolFixture({ 'notes.txt': 'not a pdf', 'broken.pdf': '%PDF-1.7\n1 0 obj garbage\n%%EOF' });
    writeFileSync(join(f.root, 'two.pdf'), await pdfWithPages([['First page', 'second line'], ['Page two here']]));
    // One page carrying more text than the bound: 2800 lines of 100 characters, drawn over each other.
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const page = doc.addPage();
    for (let i = 0; i < 2800; i++) page.drawText(`row ${i} `.padEnd(100, 'x'), { x: 20, y: 780 - (i % 50) * 15, size: 6, font });
    writeFileSync(join(f.root, 'wordy.pdf'), Buffer.from(await doc.save()));
  });
  after(() => f.close());

  it('reads page 1 by default with the page count', async () => {
    const r = await f.call('workspace_document', { path: 'two.pdf' });
    assert.equal(r.page, 1);
    assert.equal(r.pageCount, 2);
    assert.match(r.text, /First page/);
    assert.match(r.text, /second line/);
    assert.doesNotMatch(r.text, /Page two/);
    assert.equal(r.truncated, false);
  });

  it('reads the page asked for', async () => {
    const r = await f.call('workspace_document', { path: 'two.pdf', page: 2 });
    assert.match(r.text, /Page two here/);
  });

  it('refuses a page past the end and says how many there are', async () => {
    const err = await refusedWith(f.call('workspace_document', { path: 'two.pdf', page: 3 }), 'invalid_page');
    assert.equal(err.details.pageCount, 2);
  });

  it('refuses a file that is not a PDF and a PDF that cannot be parsed', async () => {
    await refusedWith(f.call('workspace_document', { path: 'notes.txt' }), 'invalid_document');
    await refusedWith(f.call('workspace_document', { path: 'broken.pdf' }), 'invalid_document');
  });

  it('cuts page text at its bound and says it did', async () => {
    const r = await f.call('workspace_document', { path: 'wordy.pdf' });
    assert.equal(r.truncated, true);
    assert.ok(Buffer.byteLength(r.text) <= MAX_PAGE_TEXT_BYTES);
    assert.ok(Buffer.byteLength(r.text) > MAX_PAGE_TEXT_BYTES - 200);
    assert.match(r.text, /^row 0 x/);
  });
});
