import { useMemo } from 'preact/hooks';
import { renderMarkdown } from './markdown';

/** A streamed answer as Markdown; the HTML was sanitised by renderMarkdown. */
export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class="md" dangerouslySetInnerHTML={{ __html: html }} />;
}
