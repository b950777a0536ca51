import type { Sharp } from 'sharp';
import { DEFAULT_FRAME_BYTES } from '../../protocol/limits.js';
import { IMAGE_FRAME_HEADROOM_BYTES, MAX_IMAGE_FILE_BYTES, MAX_IMAGE_SCALE_ATTEMPTS } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Tool, ToolContext, ToolResult } from '../types.js';
import { requiredString } from './args.js';
import { seedToolDefinition } from './seed-tools.js';
import { localWorkspaceOf, readWholeToolFile } from './workspace-files.js';

/** The encoded image may take this many bytes: its base64 (4/3 larger) plus headroom fills one gateway frame. */
export const MAX_IMAGE_PAYLOAD_BYTES = Math.floor(((DEFAULT_FRAME_BYTES - IMAGE_FRAME_HEADROOM_BYTES) * 3) / 4);
/** Each further attempt shrinks the sides by this factor more than the byte ratio suggests. */
const SCALE_MARGIN = 0.9;

type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';
const MIME: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

/** Recognises the four supported formats by their magic bytes, whatever the file is called. */
export function sniffImageFormat(head: Uint8Array): ImageFormat | null {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 6 && (b.toString('latin1', 0, 6) === 'GIF87a' || b.toString('latin1', 0, 6) === 'GIF89a')) return 'gif';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return null;
}

/**
 * `workspace_image` (docs/gateway.md): an image as ACP image content. An image whose
 * base64 would not fit one 2 MiB frame (docs/gateway.md `limits.frameBytes`) is
 * scaled down and re-encoded until it does — PNG stays PNG when it has
 * transparency, otherwise JPEG; animated images keep their first frame.
 */
export function workspaceImageTool(): Tool {
  return {
    ...seedToolDefinition('workspace_image', { policy: 'read', category: 'workspace' }),
    run: (args, ctx) => viewImage(args, ctx),
  };
}

async function viewImage(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const ws = localWorkspaceOf(ctx);
  const { rel, bytes: original } = await readWholeToolFile(ws, requiredString(args, 'path'), MAX_IMAGE_FILE_BYTES, ctx.signal);
  const format = sniffImageFormat(original.subarray(0, 16));
  if (!format) throw notAnImage(rel);
  const { default: sharp } = await import('sharp');
  const meta = await sharp(original).metadata().catch(() => {
    throw notAnImage(rel);
  });
  if (!meta.width || !meta.height) throw notAnImage(rel);

  // Dimensions as displayed: EXIF orientation may swap the sides.
  const shownWidth = meta.autoOrient?.width ?? meta.width;
  const shownHeight = meta.autoOrient?.height ?? meta.height;
  let data: Buffer = original;
  let mimeType = MIME[format];
  let width = shownWidth;
  let height = shownHeight;
  const scaled = original.length > MAX_IMAGE_PAYLOAD_BYTES;
  if (scaled) {
    const fitted = await scaleToFit(() => sharp(original, { animated: false }), shownWidth, shownHeight, original.length, !!meta.hasAlpha, ctx.signal, rel);
    ({ data, width, height } = fitted);
    mimeType = fitted.mimeType;
  }
  return {
    value: {
      path: rel,
      mimeType,
      original: { width: shownWidth, height: shownHeight, bytes: original.length, mimeType: MIME[format] },
      returned: { width, height, bytes: data.length },
      scaled,
    },
    content: [{ type: 'image', data: data.toString('base64'), mimeType }],
  };
}

interface Fitted {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
  readonly mimeType: string;
}

/** Re-encodes smaller and smaller until the bytes fit the frame, or gives up after MAX_IMAGE_SCALE_ATTEMPTS. */
async function scaleToFit(
  load: () => Sharp,
  width: number,
  height: number,
  bytes: number,
  hasAlpha: boolean,
  signal: AbortSignal,
  rel: string,
): Promise<Fitted> {
  let factor = Math.min(1, Math.sqrt(MAX_IMAGE_PAYLOAD_BYTES / bytes) * SCALE_MARGIN);
  for (let attempt = 0; attempt < MAX_IMAGE_SCALE_ATTEMPTS; attempt++) {
    signal.throwIfAborted();
    const w = Math.max(1, Math.round(width * factor));
    const h = Math.max(1, Math.round(height * factor));
    const resized = load().rotate().resize(w, h, { fit: 'inside' });
    const encoded = hasAlpha ? resized.png({ compressionLevel: 9 }) : resized.jpeg({ quality: 80 });
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
    if (data.length <= MAX_IMAGE_PAYLOAD_BYTES) {
      return { data, width: info.width, height: info.height, mimeType: hasAlpha ? 'image/png' : 'image/jpeg' };
    }
    factor *= Math.min(SCALE_MARGIN, Math.sqrt(MAX_IMAGE_PAYLOAD_BYTES / data.length) * SCALE_MARGIN);
  }
  throw new BerthError('image_too_large', `${rel} could not be scaled to fit one frame`, { limit: MAX_IMAGE_PAYLOAD_BYTES });
}

function notAnImage(rel: string): BerthError {
  return new BerthError('invalid_image', `${rel} is not a PNG, JPEG, GIF or WebP image`, { path: rel }, 'use workspace_read for text and workspace_document for PDFs');
}
