import { useEffect, useMemo } from 'preact/hooks';
import { useHighlighter } from './highlight';
import { lazyModule } from './lazy-module';

/**
 * The Markdown renderer (marked and DOMPurify, web/src/markdown.ts) is a chunk the page fetches
 * beside the app but runs only after the first frame that shows answers: compiling marked's long
 * regular expressions and DOMPurify's first document cost the main thread more than the rest of
 * that frame, so the first frame shows answers as plain text and they turn to Markdown a frame later.
 */
const renderer = lazyModule(() => import('./markdown'));

/** Asks for the renderer after the frame being prepared is painted (an effect may run before it is). */
export function loadMarkdownAfterFrame(): void {
  if (renderer.ready()) return;
  requestAnimationFrame(() => setTimeout(() => void renderer.load()));
}

/** A streamed answer as Markdown; the HTML was sanitised by renderMarkdown. Plain text until the renderer is here. */
export function Markdown({ text }: { text: string }) {
  const md = renderer.use();
  // Code in the answer is plain until the highlighter arrives; it renders again then.
  const highlighted = useHighlighter() && /```|~~~/.test(text);
  const html = useMemo(() => (md ? md.renderMarkdown(text) : null), [md, text, highlighted]);
  useEffect(() => {
    if (!md) loadMarkdownAfterFrame();
  }, [md]);
  if (html === null) return <div class="md plain">{text}</div>;
  return <div class="md" dangerouslySetInnerHTML={{ __html: html }} />;
}
