import type { ExportDocument, ExportEntry, ExportMeta } from './document.js';

/**
 * One export format as three parts — what comes before the first entry, each
 * entry, what follows the last — so an export is written entry by entry
 * (src/export/stream.ts) and never built whole in memory.
 */
export interface ExportWriter {
  head(meta: ExportMeta): string;
  /** `index` counts entries written so far (0 for the first). */
  entry(e: ExportEntry, index: number, meta: ExportMeta): string;
  foot(meta: ExportMeta, count: number): string;
  /** The document ends in one newline, whatever blank space the last entries left (Markdown). */
  readonly trimEnd?: true;
}

/**
 * Keeps back trailing blank space until more text follows it, so a streamed
 * document can end `trimEnd() + '\n'` without ever holding more than one part.
 */
export class TrailingSpace {
  private held = '';

  /** What may be written now of `text`. */
  push(text: string): string {
    const body = text.trimEnd();
    if (body === '') {
      this.held += text;
      return '';
    }
    const out = this.held + body;
    this.held = text.slice(body.length);
    return out;
  }
}

/** The whole document as one string: the parts joined, as the stream writes them. */
export function renderWhole(writer: ExportWriter, doc: ExportDocument): string {
  const parts = [writer.head(doc.meta), ...doc.entries.map((e, i) => writer.entry(e, i, doc.meta)), writer.foot(doc.meta, doc.entries.length)];
  const text = parts.join('');
  return writer.trimEnd ? `${text.trimEnd()}\n` : text;
}
