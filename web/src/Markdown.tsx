import { useMemo } from 'preact/hooks';
import { useHighlighter } from './highlight';
import { renderMarkdown } from './markdown';

/** A streamed answer as Markdown; the HTML was sanitised by renderMarkdown. */
export function Markdown({ text }: { text: string }) {
  // Code in the answer is plain until the highlighter arrives; it renders again then.
  const highlighted = useHighlighter() && /```|~~~/.test(text);
  const html = useMemo(() => renderMarkdown(text), [text, highlighted]);
  return <div class="md" dangerouslySetInnerHTML={{ __html: html }} />;
}
