import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { highlight } from './highlight';

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      return `<pre><code class="hljs">${highlight(text, lang)}</code></pre>`;
    },
  },
});

/**
 * Markdown from an agent as safe HTML: rendered by marked, then sanitised by DOMPurify (no script,
 * no event handlers, no forms, no style); links open in a new tab without an opener.
 */
export function renderMarkdown(source: string): string {
  const html = marked.parse(source, { async: false }) as string;
  return DOMPurify.sanitize(html);
}

// Set once: options passed to each sanitize call are parsed again every time (DOMPurify rebuilds
// its allow-lists from them), which was most of the cost of sanitising a short answer.
DOMPurify.setConfig({ FORBID_TAGS: ['style', 'form', 'input', 'iframe'], FORBID_ATTR: ['style'] });

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});
