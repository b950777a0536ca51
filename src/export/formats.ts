import { BerthError } from '../protocol/errors/index.js';
import type { ExportDocument } from './document.js';
import { htmlWriter } from './html.js';
import { jsonWriter } from './json.js';
import { jsonlWriter } from './jsonl.js';
import { markdownWriter } from './markdown.js';
import { renderWhole, type ExportWriter } from './writer.js';

export { buildExportDocument, type ExportDocument } from './document.js';

/** docs/client-api.md §10.2: the export formats, html first (the default). */
export const EXPORT_FORMATS = ['html', 'md', 'json', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_WRITERS: Record<ExportFormat, { contentType: string; writer: ExportWriter }> = {
  html: { contentType: 'text/html; charset=utf-8', writer: htmlWriter },
  md: { contentType: 'text/markdown; charset=utf-8', writer: markdownWriter },
  json: { contentType: 'application/json; charset=utf-8', writer: jsonWriter },
  jsonl: { contentType: 'application/jsonl; charset=utf-8', writer: jsonlWriter },
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

/** The download's file name: only [A-Za-z0-9._-]. */
export function exportFilename(sessionId: string, exportTime: string, format: ExportFormat): string {
  const stamp = exportTime.replace(/[:.]/g, '-');
  return `berth-export-${sessionId.slice(0, 8)}-${stamp}.${format}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The whole export in memory (small documents, tests); the route streams it (src/export/stream.ts). */
export function renderExport(doc: ExportDocument, format: ExportFormat): RenderedExport {
  const r = EXPORT_WRITERS[format];
  return { body: renderWhole(r.writer, doc), contentType: r.contentType, filename: exportFilename(doc.meta.sessionId, doc.meta.exportTime, format) };
}
