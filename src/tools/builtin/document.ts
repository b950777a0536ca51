import { MAX_DOCUMENT_BYTES, MAX_PAGE_TEXT_BYTES } from '../limits.js';
import { BerthError } from '../../protocol/errors/index.js';
import type { Tool, ToolContext, ToolResult } from '../types.js';
import { optionalInteger, requiredString } from './args.js';
import { seedToolDefinition } from './seed-tools.js';
import { decodeCapped } from '../../workspace/text-decode.js';
import { localWorkspaceOf, readWholeToolFile } from './workspace-files.js';

/** docs/gateway.md `workspace_document.page` maximum. */
const MAX_PAGE_NUMBER = 10_000;
/** The PDF header may follow a little junk; readers look for it within the first KiB. */
const PDF_HEADER_WINDOW = 1024;

/**
 * Parser settings for untrusted PDFs: no `eval` of font programs, no font
 * faces or system fonts, no XFA forms, no WebAssembly or image decoders, no
 * fetching. Text extraction needs none of it. In Node pdf.js runs its worker
 * code in this thread (the "fake worker"); no canvas is involved.
 */
const SAFE_PDF_OPTIONS = {
  isEvalSupported: false,
  disableFontFace: true,
  useSystemFonts: false,
  enableXfa: false,
  useWasm: false,
  useWorkerFetch: false,
  isOffscreenCanvasSupported: false,
  isImageDecoderSupported: false,
  disableAutoFetch: true,
  disableStream: true,
  disableRange: true,
  stopAtErrors: true,
  verbosity: 0,
} as const;

/**
 * `workspace_document` (docs/gateway.md): one PDF page's text and the page count.
 * A page past the end is `invalid_page` (with the count); anything pdf.js
 * cannot open is `invalid_document`. Page text beyond MAX_PAGE_TEXT_BYTES is
 * cut on a character boundary and reported `truncated`.
 */
export function workspaceDocumentTool(): Tool {
  return {
    ...seedToolDefinition('workspace_document', { policy: 'read', category: 'workspace' }),
    run: (args, ctx) => readPdfPage(args, ctx),
  };
}

async function readPdfPage(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const ws = localWorkspaceOf(ctx);
  const pageNumber = optionalInteger(args, 'page', 1, MAX_PAGE_NUMBER) ?? 1;
  const { rel, bytes } = await readWholeToolFile(ws, requiredString(args, 'path'), MAX_DOCUMENT_BYTES, ctx.signal);
  if (!bytes.subarray(0, PDF_HEADER_WINDOW).includes('%PDF-')) throw notADocument(rel, 'no PDF header');

  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = pdfjs.getDocument({ ...SAFE_PDF_OPTIONS, data: new Uint8Array(bytes) });
  const cancel = (): void => void task.destroy();
  ctx.signal.addEventListener('abort', cancel, { once: true });
  try {
    const doc = await task.promise.catch((err: unknown) => {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const name = (err as Error)?.name;
      throw notADocument(rel, name === 'PasswordException' ? 'it is password-protected' : (err as Error)?.message);
    });
    const pageCount = doc.numPages;
    if (pageNumber > pageCount) {
      throw new BerthError('invalid_page', `${rel} has ${pageCount} page(s); page ${pageNumber} does not exist`, { page: pageNumber, pageCount });
    }
    const page = await doc.getPage(pageNumber);
    const content = await page.getTextContent();
    let text = '';
    for (const item of content.items) {
      if ('str' in item) text += item.str + (item.hasEOL ? '\n' : '');
    }
    const { text: bounded, cut: truncated } = decodeCapped(Buffer.from(text, 'utf8'), MAX_PAGE_TEXT_BYTES);
    return { value: { path: rel, page: pageNumber, pageCount, text: bounded, truncated } };
  } catch (err) {
    if (err instanceof BerthError || ctx.signal.aborted) throw err;
    throw notADocument(rel, (err as Error)?.message);
  } finally {
    ctx.signal.removeEventListener('abort', cancel);
    await task.destroy();
  }
}

function notADocument(rel: string, why?: string): BerthError {
  return new BerthError('invalid_document', `${rel} is not a readable PDF${why ? `: ${why}` : ''}`, { path: rel });
}
