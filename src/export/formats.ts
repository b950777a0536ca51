import { BerthError } from '../protocol/errors/index.js';
import type { ExportDocument } from './document.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJsonl } from './jsonl.js';
import { renderMarkdown } from './markdown.js';

export { buildExportDocument, type ExportDocument } from './document.js';

/** docs/client-api.md §10.2: the export formats, html first (the default). */
export const EXPORT_FORMATS = ['html', 'md', 'json', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const RENDERERS: Record<ExportFormat, { contentType: string; render(doc: ExportDocument): string }> = {
  html: { contentType: 'text/html; charset=utf-8', render: renderHtml },
  md: { contentType: 'text/markdown; charset=utf-8', render: renderMarkdown },
  json: { contentType: 'application/json; charset=utf-8', render: renderJson },
  jsonl: { contentType: 'application/jsonl; charset=utf-8', render: renderJsonl },
};

/** `?format=` → a known format (absent means html), or 400 `invalid_export_format` with the allowed list. */
export function parseExportFormat(raw: string | undefined): ExportFormat {
  const format = raw ?? 'html';
  if ((EXPORT_FORMATS as readonly string[]).includes(format)) return format as ExportFormat;
  throw new BerthError('invalid_export_format', 'Invalid export format', { format, allowedFormats: [...EXPORT_FORMATS] });
}

export interface RenderedExport {
  readonly body: string;
  readonly contentType: string;
  /** Only [A-Za-z0-9._-], so it needs no escaping inside `filename="…"` (docs/client-api.md §10.2, SDK §2.1). */
  readonly filename: string;
}

export function renderExport(doc: ExportDocument, format: ExportFormat): RenderedExport {
  const r = RENDERERS[format];
  const stamp = doc.meta.exportTime.replace(/[:.]/g, '-');
  const filename = `berth-export-${doc.meta.sessionId.slice(0, 8)}-${stamp}.${format}`.replace(/[^A-Za-z0-9._-]/g, '_');
  return { body: r.render(doc), contentType: r.contentType, filename };
}
