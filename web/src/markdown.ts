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

/**
 * Compiles marked's and DOMPurify's patterns ahead of the first answer. Most of the cost of the
 * first Markdown render is the JavaScript engine compiling marked's long block and inline regular
 * expressions on first use (tens of milliseconds); a page that is still waiting for a session's
 * load does it meanwhile, instead of in the frame that shows the replay.
 */
export function warmMarkdown(): void {
  renderMarkdown('# Warm\n\nA *line* with _emphasis_, **strong**, ~~gone~~, `code`, [a link](https://example.com) and <b>tag</b>.\n\n> quote\n\n- item\n\n1. item\n\n| a | b |\n| - | - |\n| 1 | 2 |\n');
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
